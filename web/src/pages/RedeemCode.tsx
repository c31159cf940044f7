import { Alert, Button, Card, Group, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

/** The refusals of `POST /api/credits/redeem` the form names in its own words. */
const REFUSALS = ['CODE_INVALID', 'CODE_EXPIRED', 'CODE_ALREADY_REDEEMED', 'RATE_LIMITED'];

/**
 * Redeeming a code for credits (`POST /api/credits/redeem {code}`): shows the credits granted
 * and the new balance, or why the code was refused. Case, spaces and hyphens do not matter.
 */
export function RedeemCode() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const redeem = useMutation({
    mutationFn: async (code: string) =>
      unwrap(await api.POST('/api/credits/redeem', { body: { code } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['credits'] }),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get('code') ?? '').trim();
    if (code) redeem.mutate(code);
  };
  const messages = Object.fromEntries(REFUSALS.map((c) => [c, t(`billing.redeem.errors.${c}`)]));

  return (
    <Card withBorder mb="lg">
      <Title order={2} size="h3" mb="xs">
        {t('billing.redeem.title')}
      </Title>
      <Text size="sm" mb="sm">
        {t('billing.redeem.explain')}
      </Text>
      <form onSubmit={submit}>
        <Group align="end">
          <TextInput
            name="code"
            label={t('billing.redeem.code')}
            placeholder="XXXX-XXXX-XXXX-XXXX-XXXX"
            maxLength={64}
            autoComplete="off"
            required
            w={320}
          />
          <Button type="submit" loading={redeem.isPending}>
            {t('billing.redeem.submit')}
          </Button>
        </Group>
      </form>
      <ErrorNote error={redeem.error} messages={messages} />
      {redeem.data && (
        <Alert color="green" role="status" mt="sm" data-testid="redeemed">
          {t('billing.redeem.done', {
            count: redeem.data.credits,
            balance: redeem.data.balance,
          })}
        </Alert>
      )}
    </Card>
  );
}
