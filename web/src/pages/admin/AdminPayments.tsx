import {
  Alert,
  Button,
  Card,
  Group,
  NumberInput,
  SegmentedControl,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { AuditTable, type AuditFilter } from './AuditTable';

/** The payment events of the audit log shown as purchases, refunds and disputes. */
const KINDS = {
  purchases: 'credits.purchase.grant',
  refunds: 'payment.refund',
  clawbacks: 'credits.refund.clawback',
  disputes: 'credits.dispute.clawback',
} as const satisfies Record<string, AuditFilter['action']>;

/**
 * `/{locale}/admin/payments`: granted purchases, refunds and disputes (from the audit log),
 * refunding a payment (`POST /api/payment/refund`), and the failed webhook events
 * (`GET /api/admin/webhooks/failed`) with a replay each (`POST …/{eventId}/replay`).
 */
export default function AdminPayments() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<keyof typeof KINDS>('purchases');
  const failed = useQuery({
    queryKey: ['admin', 'webhooks'],
    queryFn: async () => unwrap(await api.GET('/api/admin/webhooks/failed')).data,
  });
  const replay = useMutation({
    mutationFn: async (eventId: string) =>
      unwrap(
        await api.POST('/api/admin/webhooks/failed/{eventId}/replay', {
          params: { path: { eventId } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin'] }),
  });
  const refund = useMutation({
    mutationFn: async (body: { paymentIntentId: string; amount?: number }) =>
      unwrap(await api.POST('/api/payment/refund', { body })).refund,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin'] }),
  });
  const submitRefund = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const amount = Number(form.get('amount'));
    refund.mutate({
      paymentIntentId: String(form.get('paymentIntentId')).trim(),
      ...(amount > 0 ? { amount } : {}),
    });
  };

  return (
    <>
      <Title order={1} mb="md">
        {t('admin.payments.title')}
      </Title>
      <Card withBorder mb="lg">
        <Title order={2} size="h3" mb="sm">
          {t('admin.payments.failed')}
        </Title>
        <ErrorNote error={failed.error ?? replay.error} />
        {replay.data && (
          <Alert color="green" role="status" mb="sm">
            {t(`admin.payments.outcome.${replay.data.outcome}`, { id: replay.data.eventId })}
          </Alert>
        )}
        {failed.data?.length === 0 && <Text>{t('admin.payments.noFailed')}</Text>}
        {!!failed.data?.length && (
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('admin.payments.event')}</Table.Th>
                <Table.Th>{t('admin.payments.type')}</Table.Th>
                <Table.Th>{t('admin.payments.error')}</Table.Th>
                <Table.Th>{t('admin.payments.attempts')}</Table.Th>
                <Table.Th>{t('admin.payments.last')}</Table.Th>
                <Table.Th>{t('admin.payments.replay')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {failed.data.map((f) => (
                <Table.Tr key={f.eventId}>
                  <Table.Td>{f.eventId}</Table.Td>
                  <Table.Td>{f.type}</Table.Td>
                  <Table.Td>{f.error}</Table.Td>
                  <Table.Td>{f.attempts}</Table.Td>
                  <Table.Td>{new Date(f.lastAttemptAt).toLocaleString(i18n.language)}</Table.Td>
                  <Table.Td>
                    <Button
                      size="xs"
                      aria-label={t('admin.payments.replayEvent', { id: f.eventId })}
                      loading={replay.isPending && replay.variables === f.eventId}
                      onClick={() => replay.mutate(f.eventId)}
                    >
                      {t('admin.payments.replay')}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Card>
      <Card withBorder mb="lg">
        <Title order={2} size="h3" mb="sm">
          {t('admin.payments.refund')}
        </Title>
        <form onSubmit={submitRefund}>
          <Group align="end">
            <TextInput
              name="paymentIntentId"
              label={t('admin.payments.intent')}
              required
              pattern="pi_[A-Za-z0-9_]+"
              w={320}
            />
            <NumberInput
              name="amount"
              label={t('admin.payments.amount')}
              description={t('admin.payments.amountHint')}
              min={0}
              decimalScale={2}
            />
            <Button type="submit" color="red.9" loading={refund.isPending}>
              {t('admin.payments.refundButton')}
            </Button>
          </Group>
        </form>
        <ErrorNote error={refund.error} />
        {refund.data && (
          <Alert color="green" role="status" mt="sm">
            {t('admin.payments.refunded', { id: refund.data.id, status: refund.data.status })}
          </Alert>
        )}
      </Card>
      <Card withBorder>
        <SegmentedControl
          mb="sm"
          value={kind}
          onChange={(v) => setKind(v as keyof typeof KINDS)}
          aria-label={t('admin.payments.history')}
          data={Object.keys(KINDS).map((k) => ({ value: k, label: t(`admin.payments.${k}`) }))}
        />
        <AuditTable filter={{ action: KINDS[kind] }} />
      </Card>
    </>
  );
}
