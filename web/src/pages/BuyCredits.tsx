import { Alert, Button, Card, Group, Image, Radio, Select, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';

type Method = 'alipay' | 'wechat_pay';

/** Credit packs in CNY at the service's default price (CREDITS_PER_CNY 14 credits per yuan). */
const PACKS = [
  { amount: 10, credits: 140 },
  { amount: 50, credits: 700 },
  { amount: 100, credits: 1400 },
];

/**
 * Buying credits (`POST /api/credits/purchase`), with the wallets that need no card form in the
 * page: Alipay sends the browser to its authorisation page, which returns to the service's
 * `/payment/success`; WeChat Pay shows its QR code here and polls
 * `GET /api/credits/purchases/{id}` until the webhook has granted the credits.
 */
export function BuyCredits() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [method, setMethod] = useState<Method>('alipay');
  const [pack, setPack] = useState('0');
  const buy = useMutation({
    mutationFn: async () => {
      const { amount, credits } = PACKS[Number(pack)];
      const body = { amount, credits, paymentMethod: method, currency: 'cny' as const };
      return unwrap(await api.POST('/api/credits/purchase', { body }));
    },
    onSuccess: (created) => {
      if (created.nextAction?.type === 'alipay_handle_redirect' && created.nextAction.url)
        window.location.assign(created.nextAction.url);
    },
  });
  const pending = buy.data?.nextAction?.type === 'wechat_pay_display_qr_code' ? buy.data : null;
  const status = useQuery({
    queryKey: ['purchase', pending?.purchaseId],
    enabled: !!pending,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/credits/purchases/{id}', {
          params: { path: { id: pending!.purchaseId } },
        }),
      ),
    refetchInterval: (q) => (q.state.data?.status === 'pending' ? 2000 : false),
  });
  if (status.data?.status === 'succeeded')
    void queryClient.invalidateQueries({ queryKey: ['credits'] });

  return (
    <Card withBorder mb="lg">
      <Title order={2} size="h3" mb="sm">
        {t('billing.buy')}
      </Title>
      <Radio.Group
        label={t('billing.method')}
        value={method}
        onChange={(v) => setMethod(v as Method)}
        mb="sm"
      >
        <Group mt={6}>
          <Radio value="alipay" label={t('billing.alipay')} />
          <Radio value="wechat_pay" label={t('billing.wechat')} />
        </Group>
      </Radio.Group>
      <Group align="end">
        <Select
          label={t('billing.pack')}
          value={pack}
          onChange={(v) => setPack(v ?? '0')}
          allowDeselect={false}
          data={PACKS.map((p, i) => ({
            value: String(i),
            label: t('billing.packLabel', { amount: p.amount, count: p.credits }),
          }))}
        />
        <Button onClick={() => buy.mutate()} loading={buy.isPending}>
          {t('billing.pay')}
        </Button>
      </Group>
      <Text size="sm" mt="xs" c="dark.6">
        {t('billing.cardNote')}
      </Text>
      <ErrorNote error={buy.error ?? status.error} />
      {pending && (
        <Alert mt="sm" role="status" title={t('billing.scan')}>
          {pending.nextAction?.image_data_url && (
            <Image src={pending.nextAction.image_data_url} alt={t('billing.qr')} w={180} />
          )}
          <Text size="sm" data-testid="purchase-status">
            {t(`billing.status.${status.data?.status ?? 'pending'}`)}
          </Text>
        </Alert>
      )}
    </Card>
  );
}
