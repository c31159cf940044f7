import { BarChart } from '@mantine/charts';
import '@mantine/charts/styles.css';
import { Anchor, Button, Card, Group, List, SimpleGrid, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';
import { Loading } from '../components/Loading';
import { useCredits } from '../session';
import { LimitsCard } from './LimitsCard';

/** One figure with its label, in a card. */
function Figure({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dark.6">
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={testId}>
        {value}
      </Text>
    </Card>
  );
}

/**
 * `/{locale}/dashboard`: the balance and today's use (`GET /api/credits`), the credits left in
 * each limit's window (LimitsCard), credits used per day over the last 30 days
 * (`GET /api/credits/usage`, the service's default window, by day) as a bar chart, and the five
 * most recent chats (`GET /api/chats`).
 */
export default function Dashboard() {
  const { t, i18n } = useTranslation();
  const { locale } = useParams();
  const credits = useCredits();
  const usage = useQuery({
    queryKey: ['usage', 'day'],
    queryFn: async () =>
      unwrap(await api.GET('/api/credits/usage', { params: { query: { groupBy: 'day' } } })),
  });
  const chats = useQuery({
    queryKey: ['chats', 'recent'],
    queryFn: async () =>
      unwrap(await api.GET('/api/chats', { params: { query: { limit: 5, messages: 0 } } })),
  });
  const number = new Intl.NumberFormat(i18n.language);

  return (
    <>
      <Title order={1} mb="md">
        {t('dashboard.title')}
      </Title>
      <ErrorNote error={credits.error ?? usage.error ?? chats.error} />
      {credits.data ? (
        <SimpleGrid cols={{ base: 1, sm: 3 }} mb="lg">
          <Figure
            label={t('dashboard.balance')}
            value={t('dashboard.credits', { count: credits.data.balance })}
            testId="balance"
          />
          <Figure label={t('dashboard.plan')} value={credits.data.plan} />
          <Figure label={t('dashboard.usedToday')} value={number.format(credits.data.usedToday)} />
        </SimpleGrid>
      ) : (
        <Loading />
      )}
      <LimitsCard />

      <Card withBorder mb="lg">
        <Title order={2} size="h3" mb="xs">
          {t('dashboard.usage')}
        </Title>
        {usage.data && (
          <>
            <Text size="sm" mb="sm">
              {t('dashboard.usageTotal', {
                credits: number.format(usage.data.totals.credits),
                requests: number.format(usage.data.totals.requests),
              })}
            </Text>
            <BarChart
              h={220}
              data={usage.data.data.map((row) => ({
                day: row.day?.slice(5),
                credits: row.credits,
              }))}
              dataKey="day"
              series={[{ name: 'credits', label: t('dashboard.creditsUsed'), color: 'indigo.8' }]}
              aria-label={t('dashboard.usage')}
              role="img"
            />
          </>
        )}
      </Card>

      <Card withBorder>
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h3">
            {t('dashboard.recentChats')}
          </Title>
          <Button component={Link} to={`/${locale}/dashboard/chat`} size="xs">
            {t('dashboard.newChat')}
          </Button>
        </Group>
        {chats.data?.data.length === 0 && <Text>{t('dashboard.noChats')}</Text>}
        <List listStyleType="none" spacing="xs">
          {chats.data?.data.map((chat) => (
            <List.Item key={chat.id}>
              <Anchor component={Link} to={`/${locale}/dashboard/chat?id=${chat.id}`} c="indigo.9">
                {chat.title || t('dashboard.untitled')}
              </Anchor>{' '}
              <Text span size="sm" c="dark.6">
                {new Date(chat.updatedAt).toLocaleString(i18n.language)}
              </Text>
            </List.Item>
          ))}
        </List>
      </Card>
    </>
  );
}
