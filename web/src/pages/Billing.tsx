import {
  Anchor,
  Card,
  Code,
  CopyButton,
  Button,
  Group,
  SimpleGrid,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ErrorNote';
import { useCredits } from '../session';
import { BuyCredits } from './BuyCredits';
import { RedeemCode } from './RedeemCode';

/**
 * `/{locale}/dashboard/billing`: the plan and balance (`GET /api/credits`), buying credits,
 * redeeming a code (`POST /api/credits/redeem`), my purchases (`GET /api/credits/purchases`) and my referral link with its counts
 * (`GET /api/referrals`).
 */
export default function Billing() {
  const { t, i18n } = useTranslation();
  const credits = useCredits();
  const purchases = useQuery({
    queryKey: ['purchases'],
    queryFn: async () => unwrap(await api.GET('/api/credits/purchases')).data,
  });
  const referrals = useQuery({
    queryKey: ['referrals'],
    queryFn: async () => unwrap(await api.GET('/api/referrals')),
  });
  const money = (minor: number, currency: string) =>
    new Intl.NumberFormat(i18n.language, { style: 'currency', currency }).format(minor / 100);

  return (
    <>
      <Title order={1} mb="md">
        {t('billing.title')}
      </Title>
      <ErrorNote error={credits.error ?? purchases.error ?? referrals.error} />
      <SimpleGrid cols={{ base: 1, sm: 2 }} mb="lg">
        <Card withBorder>
          <Text size="sm" c="dark.6">
            {t('dashboard.plan')}
          </Text>
          <Text size="xl" fw={700} data-testid="plan">
            {credits.data?.plan}
          </Text>
        </Card>
        <Card withBorder>
          <Text size="sm" c="dark.6">
            {t('dashboard.balance')}
          </Text>
          <Text size="xl" fw={700} data-testid="balance">
            {credits.data && t('dashboard.credits', { count: credits.data.balance })}
          </Text>
        </Card>
      </SimpleGrid>
      <BuyCredits />
      <RedeemCode />
      <Card withBorder mb="lg">
        <Title order={2} size="h3" mb="sm">
          {t('billing.purchases')}
        </Title>
        {purchases.data?.length === 0 && <Text>{t('billing.noPurchases')}</Text>}
        {!!purchases.data?.length && (
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('billing.date')}</Table.Th>
                <Table.Th>{t('billing.method')}</Table.Th>
                <Table.Th>{t('billing.amount')}</Table.Th>
                <Table.Th>{t('billing.creditsCol')}</Table.Th>
                <Table.Th>{t('billing.state')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {purchases.data.map((p) => (
                <Table.Tr key={p.id} data-testid="purchase-row">
                  <Table.Td>{new Date(p.createdAt).toLocaleString(i18n.language)}</Table.Td>
                  <Table.Td>{p.method}</Table.Td>
                  <Table.Td>{money(p.amount, p.currency)}</Table.Td>
                  <Table.Td>{p.credits}</Table.Td>
                  <Table.Td>{t(`billing.status.${p.status}`)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Card>
      <Card withBorder>
        <Title order={2} size="h3" mb="sm">
          {t('billing.referral')}
        </Title>
        {referrals.data && (
          <>
            <Text size="sm" mb="xs">
              {t('billing.referralExplain')}
            </Text>
            <Group mb="sm">
              <Code data-testid="referral-link">{referrals.data.link}</Code>
              <CopyButton value={referrals.data.link}>
                {({ copied, copy }) => (
                  <Button size="xs" variant="outline" onClick={copy}>
                    {copied ? t('billing.copied') : t('billing.copy')}
                  </Button>
                )}
              </CopyButton>
            </Group>
            <Text data-testid="referral-counts">
              {t('billing.referralCounts', {
                invited: referrals.data.invited,
                rewarded: referrals.data.rewarded,
                credits: referrals.data.creditsEarned,
              })}
            </Text>
            <Anchor href={referrals.data.link} size="sm" c="indigo.9">
              {t('billing.referralOpen')}
            </Anchor>
          </>
        )}
      </Card>
    </>
  );
}
