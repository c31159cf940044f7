import {
  Button,
  Card,
  CloseButton,
  Group,
  SegmentedControl,
  Select,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { Loading } from '../../components/Loading';
import { download, toCsv } from '../../lib/csv';
import {
  allUsageRows,
  CSV_COLUMNS,
  USAGE_GROUPS,
  usagePage,
  type UsageGroup,
  type UsageQuery,
  type UsageRow,
} from './usage-query';
import { usageLabel, UsageResults } from './UsageResults';

/** A filter the explorer narrows to: an id and what to call it. */
interface Picked {
  id: string;
  label: string;
}
const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * `/{locale}/admin/usage`: usage across users (`GET /api/admin/usage`) by user, team, model,
 * API key or day over a chosen range, as a bar chart and a table a page at a time, with a CSV
 * export of every group of the range. Narrowed to one user (picked by email or name, or from a
 * row by user) or to one team's members (from a row by team).
 */
export default function AdminUsage() {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const [user, setUser] = useState<Picked | null>(null);
  const [team, setTeam] = useState<Picked | null>(null);
  const [groupBy, setGroupBy] = useState<UsageGroup>('user');
  const [range, setRange] = useState({
    from: day(new Date(Date.now() - 29 * 86_400_000)),
    to: day(new Date()),
  });
  const [exportError, setExportError] = useState<unknown>(null);
  const users = useQuery({
    queryKey: ['admin', 'users', 'pick', search],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/users', {
          params: { query: { limit: 20, ...(search ? { q: search } : {}) } },
        }),
      ).data,
  });
  const query: UsageQuery = {
    groupBy,
    ...range,
    ...(user ? { userId: user.id } : {}),
    ...(team ? { teamId: team.id } : {}),
  };
  const usage = useInfiniteQuery({
    queryKey: ['admin', 'usage', query],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => usagePage(query, pageParam),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const rows = usage.data?.pages.flatMap((p) => p.data) ?? [];
  const totals = usage.data?.pages[0]?.totals;

  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setRange({ from: String(form.get('from')), to: String(form.get('to')) });
  };
  /** A row by user narrows to that user by model; a row by team to its members. */
  const pick = (row: UsageRow, label: string) => {
    if (!row.key) return;
    if (groupBy === 'user') {
      setUser({ id: row.key, label });
      setGroupBy('model');
    } else if (groupBy === 'team') {
      setTeam({ id: row.key, label });
      setGroupBy('user');
    }
  };
  const exportCsv = async () => {
    setExportError(null);
    try {
      const all = await allUsageRows(query);
      const lines = all.map((r) => ({ ...r, label: usageLabel(t, groupBy, r) }));
      download(`usage-${groupBy}-${range.from}-${range.to}.csv`, toCsv([...CSV_COLUMNS], lines));
    } catch (error) {
      setExportError(error);
    }
  };
  const options = (users.data ?? []).map((u) => ({ value: u.id, label: u.email }));
  if (user && !options.some((o) => o.value === user.id))
    options.unshift({ value: user.id, label: user.label });

  return (
    <>
      <Title order={1} mb="md">
        {t('admin.usage.title')}
      </Title>
      <Card withBorder mb="lg">
        <Group align="end">
          <Select
            label={t('admin.usage.user')}
            placeholder={t('admin.usage.everyone')}
            searchable
            clearable
            w={320}
            searchValue={search}
            onSearchChange={setSearch}
            value={user?.id ?? null}
            onChange={(id, option) => setUser(id && option ? { id, label: option.label } : null)}
            filter={({ options: all }) => all}
            data={options}
            nothingFoundMessage={t('admin.users.none')}
          />
          {team && (
            <Group gap={4} mb={6} data-testid="team-filter">
              <Text size="sm" fw={700}>
                {t('admin.usage.teamFilter', { name: team.label })}
              </Text>
              <CloseButton
                size="sm"
                aria-label={t('admin.usage.allTeams')}
                onClick={() => setTeam(null)}
              />
            </Group>
          )}
        </Group>
        <SegmentedControl
          mt="sm"
          value={groupBy}
          onChange={(v) => setGroupBy(v as UsageGroup)}
          aria-label={t('admin.usage.groupBy')}
          data={USAGE_GROUPS.map((g) => ({ value: g, label: t(`admin.usage.by.${g}`) }))}
        />
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
            <Button variant="outline" disabled={!rows.length} onClick={() => void exportCsv()}>
              {t('admin.usage.csv')}
            </Button>
          </Group>
        </form>
      </Card>
      <ErrorNote error={users.error ?? usage.error ?? exportError} />
      {usage.isPending && <Loading />}
      {totals && (
        <UsageResults
          groupBy={groupBy}
          rows={rows}
          totals={totals}
          onPick={pick}
          onMore={usage.hasNextPage ? () => void usage.fetchNextPage() : undefined}
        />
      )}
    </>
  );
}
