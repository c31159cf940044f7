import { BarChart } from '@mantine/charts';
import '@mantine/charts/styles.css';
import {
  Button,
  Card,
  Group,
  SegmentedControl,
  Select,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { download, toCsv } from '../../lib/csv';

type GroupBy = 'day' | 'model' | 'key';
const day = (d: Date) => d.toISOString().slice(0, 10);
const COLUMNS = [
  'label',
  'requests',
  'promptTokens',
  'completionTokens',
  'cachedTokens',
  'credits',
] as const;

/**
 * `/{locale}/admin/usage`: one user's usage (found by email or name) per day, model or API key
 * over a chosen range (`GET /api/users/{id}/usage`), as a bar chart and a table, with a CSV
 * export of the table.
 */
export default function AdminUsage() {
  const { t, i18n } = useTranslation();
  const [search, setSearch] = useState('');
  const [userId, setUserId] = useState<string | null>(null);
  const [groupBy, setGroupBy] = useState<GroupBy>('day');
  const [range, setRange] = useState({
    from: day(new Date(Date.now() - 29 * 86_400_000)),
    to: day(new Date()),
  });
  const users = useQuery({
    queryKey: ['admin', 'users', 'pick', search],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/users', {
          params: { query: { limit: 20, ...(search ? { q: search } : {}) } },
        }),
      ).data,
  });
  const usage = useQuery({
    queryKey: ['admin', 'usage', userId, groupBy, range],
    enabled: !!userId,
    queryFn: async () =>
      unwrap(
        await api.GET('/api/users/{id}/usage', {
          params: { path: { id: userId! }, query: { groupBy, ...range } },
        }),
      ).data,
  });
  const rows = (usage.data?.data ?? []).map((r) => ({
    ...r,
    label:
      (groupBy === 'day' ? r.day : groupBy === 'model' ? r.modelId : r.keyId) ??
      t('admin.usage.none'),
  }));
  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setRange({ from: String(form.get('from')), to: String(form.get('to')) });
  };
  const number = new Intl.NumberFormat(i18n.language);

  return (
    <>
      <Title order={1} mb="md">
        {t('admin.usage.title')}
      </Title>
      <Card withBorder mb="lg">
        <Group align="end">
          <Select
            label={t('admin.usage.user')}
            searchable
            w={320}
            searchValue={search}
            onSearchChange={setSearch}
            value={userId}
            onChange={setUserId}
            filter={({ options }) => options}
            data={(users.data ?? []).map((u) => ({ value: u.id, label: u.email }))}
            nothingFoundMessage={t('admin.users.none')}
          />
          <SegmentedControl
            value={groupBy}
            onChange={(v) => setGroupBy(v as GroupBy)}
            aria-label={t('admin.usage.groupBy')}
            data={(['day', 'model', 'key'] as const).map((g) => ({
              value: g,
              label: t(`admin.usage.by.${g}`),
            }))}
          />
        </Group>
        <form onSubmit={apply}>
          <Group align="end" mt="sm">
            <TextInput
              type="date"
              name="from"
              label={t('admin.from')}
              defaultValue={range.from}
              required
            />
            <TextInput
              type="date"
              name="to"
              label={t('admin.to')}
              defaultValue={range.to}
              required
            />
            <Button type="submit">{t('admin.apply')}</Button>
            <Button
              variant="outline"
              disabled={!rows.length}
              onClick={() =>
                download(
                  `usage-${groupBy}-${range.from}-${range.to}.csv`,
                  toCsv([...COLUMNS], rows),
                )
              }
            >
              {t('admin.usage.csv')}
            </Button>
          </Group>
        </form>
      </Card>
      <ErrorNote error={users.error ?? usage.error} />
      {!userId && <Text>{t('admin.usage.pick')}</Text>}
      {usage.data && (
        <Card withBorder>
          <Text size="sm" mb="sm">
            {t('dashboard.usageTotal', {
              credits: number.format(usage.data.totals.credits),
              requests: number.format(usage.data.totals.requests),
            })}
          </Text>
          <BarChart
            h={240}
            data={rows}
            dataKey="label"
            series={[{ name: 'credits', label: t('dashboard.creditsUsed'), color: 'indigo.8' }]}
            aria-label={t('admin.usage.chart')}
            role="img"
          />
          <Table mt="md" data-testid="usage-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t(`admin.usage.by.${groupBy}`)}</Table.Th>
                <Table.Th>{t('admin.usage.requests')}</Table.Th>
                <Table.Th>{t('admin.usage.prompt')}</Table.Th>
                <Table.Th>{t('admin.usage.completion')}</Table.Th>
                <Table.Th>{t('dashboard.creditsUsed')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.label}>
                  <Table.Td>{r.label}</Table.Td>
                  <Table.Td>{number.format(r.requests)}</Table.Td>
                  <Table.Td>{number.format(r.promptTokens)}</Table.Td>
                  <Table.Td>{number.format(r.completionTokens)}</Table.Td>
                  <Table.Td>{number.format(r.credits)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      )}
    </>
  );
}
