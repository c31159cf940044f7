import { Card, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorNote } from '../components/ErrorNote';
import { type LimitWindow, useLimits, windowKey } from '../limits';

/**
 * The credits left in each window that applies to me (useLimits): whose window and its kind,
 * what is left of the limit, a bar of what is used and held, and when the window starts again.
 */
export function LimitsCard() {
  const { t, i18n } = useTranslation();
  const limits = useLimits();
  const number = new Intl.NumberFormat(i18n.language);
  const time = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'short', timeStyle: 'short' });
  const nameOf = (w: LimitWindow) =>
    t('dashboard.windowOf', {
      scope: t(`dashboard.scope.${w.scope}`, { defaultValue: w.scope }),
      window: t(`dashboard.window.${w.window}`, { count: w.hours ?? 0, defaultValue: w.window }),
    });
  return (
    <Card withBorder mb="lg">
      <Title order={2} size="h3" mb="xs">
        {t('dashboard.limits')}
      </Title>
      <ErrorNote error={limits.error} />
      <Stack gap="sm">
        {limits.data?.map((w) => {
          const name = nameOf(w);
          const spent = w.used + w.held;
          return (
            <div key={windowKey(w)} data-testid={`limit-${w.scope}-${w.window}`}>
              <Group justify="space-between">
                <Text fw={700}>{name}</Text>
                <Text>
                  {t('dashboard.left', {
                    remaining: number.format(w.remaining),
                    limit: number.format(w.limit),
                  })}
                </Text>
              </Group>
              <Progress
                value={w.limit > 0 ? Math.min(100, (100 * spent) / w.limit) : 100}
                color={w.remaining > 0 ? 'indigo.8' : 'red.9'}
                aria-label={t('dashboard.usedOf', { window: name })}
                mt={4}
              />
              {w.resetsAt && (
                <Text size="sm" c="dark.6" mt={2}>
                  {t('dashboard.resets', { at: time.format(new Date(w.resetsAt)) })}
                </Text>
              )}
            </div>
          );
        })}
      </Stack>
    </Card>
  );
}
