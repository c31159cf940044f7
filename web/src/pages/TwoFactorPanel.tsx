import {
  Alert,
  Button,
  Card,
  Code,
  Group,
  Image,
  PasswordInput,
  SimpleGrid,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/** The form field `name` of a submit event, trimmed. */
const field = (e: FormEvent<HTMLFormElement>, name: string) =>
  String(new FormData(e.currentTarget).get(name) ?? '').trim();

/**
 * Two-factor authentication: its state (`GET /api/auth/2fa`); setup shows the QR code and secret
 * (`POST …/setup`), a code turns it on and shows the recovery codes once (`POST …/enable`); new
 * recovery codes (`POST …/recovery-codes`); turning it off (`POST …/disable`).
 */
export function TwoFactorPanel() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: ['2fa'],
    queryFn: async () => unwrap(await api.GET('/api/auth/2fa')),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['2fa'] });
  const setup = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/auth/2fa/setup')),
  });
  const enable = useMutation({
    mutationFn: async (code: string) =>
      unwrap(await api.POST('/api/auth/2fa/enable', { body: { code } })).recoveryCodes,
    onSuccess: () => {
      setup.reset();
      void refresh();
    },
  });
  const renew = useMutation({
    mutationFn: async (code: string) =>
      unwrap(await api.POST('/api/auth/2fa/recovery-codes', { body: { code } })).recoveryCodes,
    onSuccess: refresh,
  });
  const disable = useMutation({
    mutationFn: async (body: { code: string; password?: string }) =>
      unwrap(await api.POST('/api/auth/2fa/disable', { body })),
    onSuccess: () => {
      enable.reset();
      renew.reset();
      void refresh();
    },
  });
  const codes = renew.data ?? enable.data;
  const on = status.data?.enabled;

  return (
    <Card withBorder mb="lg">
      <Title order={2} size="h3" mb="sm">
        {t('account.twoFactor')}
      </Title>
      <ErrorNote
        error={status.error ?? setup.error ?? enable.error ?? renew.error ?? disable.error}
      />
      {status.data && (
        <Text mb="sm" data-testid="2fa-state">
          {on
            ? t('account.twoFactorOn', { count: status.data.recoveryCodesLeft })
            : t('account.twoFactorOff')}
        </Text>
      )}
      {codes && (
        <Alert color="yellow" role="status" title={t('account.recoveryCodes')} mb="sm">
          <Text size="sm">{t('account.recoveryOnce')}</Text>
          <Code block data-testid="recovery-codes">
            {codes.join('\n')}
          </Code>
        </Alert>
      )}
      {status.data && !on && !setup.data && (
        <Button onClick={() => setup.mutate()} loading={setup.isPending}>
          {t('account.setUp')}
        </Button>
      )}
      {setup.data && !on && (
        <Group align="start">
          <Image src={setup.data.qrCodeDataUrl} alt={t('account.qr')} w={180} />
          <div>
            <Text size="sm">{t('account.scan')}</Text>
            <Code data-testid="totp-secret">{setup.data.secret}</Code>
            <form onSubmit={(e) => (e.preventDefault(), enable.mutate(field(e, 'code')))}>
              <Group align="end" mt="sm">
                <TextInput
                  name="code"
                  label={t('account.code')}
                  required
                  autoComplete="one-time-code"
                  inputMode="numeric"
                />
                <Button type="submit" loading={enable.isPending}>
                  {t('account.turnOn')}
                </Button>
              </Group>
            </form>
          </div>
        </Group>
      )}
      {on && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <form onSubmit={(e) => (e.preventDefault(), renew.mutate(field(e, 'code')))}>
            <TextInput
              name="code"
              label={t('account.code')}
              required
              autoComplete="one-time-code"
            />
            <Button type="submit" mt="sm" variant="outline" loading={renew.isPending}>
              {t('account.newCodes')}
            </Button>
          </form>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              const password = field(e, 'password');
              disable.mutate({ code: field(e, 'code'), ...(password ? { password } : {}) });
            }}
          >
            <PasswordInput
              name="password"
              label={t('auth.password')}
              autoComplete="current-password"
            />
            <TextInput
              name="code"
              label={t('account.code')}
              required
              mt="xs"
              autoComplete="one-time-code"
            />
            <Button
              type="submit"
              mt="sm"
              color="red.9"
              variant="outline"
              loading={disable.isPending}
            >
              {t('account.turnOff')}
            </Button>
          </form>
        </SimpleGrid>
      )}
    </Card>
  );
}
