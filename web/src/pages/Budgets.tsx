import { Button, Card, Group, Select, SimpleGrid, Table, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorNote } from '../components/ErrorNote';
import { LimitsCard } from './LimitsCard';

type Budget = components['schemas']['BudgetDto'];
type BudgetWindow = components['schemas']['BudgetWindowDto'];
type Kind = BudgetWindow['window'];
/** The calendar windows the form offers, each one limit field; `hours` has a length too. */
const KINDS: Kind[] = ['day', 'week', 'month', 'total'];

/** The windows the form's fields name: a limit for each kind filled in, and an hours session. */
function windowsOf(form: FormData): BudgetWindow[] {
  const number = (name: string) => {
    const value = String(form.get(name) ?? '').trim();
    return value === '' ? null : Number(value);
  };
  const windows: BudgetWindow[] = [];
  for (const kind of KINDS) {
    const limit = number(`limit-${kind}`);
    if (limit !== null) windows.push({ window: kind, limit });
  }
  const hours = number('hours');
  const hoursLimit = number('limit-hours');
  if (hours !== null || hoursLimit !== null)
    windows.push({ window: 'hours', hours, limit: hoursLimit ?? 0 });
  return windows;
}

/**
 * `/{locale}/dashboard/budgets`: what is left in every window that applies to me
 * (`GET /api/credits/limits`), the budgets I set or am capped by (`GET /api/budgets`, deleted
 * with `DELETE /api/budgets/{id}`), and a form that sets the budget of myself or of one of my
 * keys (`PUT /api/budgets`, replacing that budget's windows).
 */
export default function Budgets() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [owner, setOwner] = useState('user');
  const budgets = useQuery({
    queryKey: ['budgets'],
    queryFn: async () => unwrap(await api.GET('/api/budgets')),
  });
  const keys = useQuery({
    queryKey: ['keys'],
    queryFn: async () => unwrap(await api.GET('/api/keys')).keys,
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ['budgets'] });
    void queryClient.invalidateQueries({ queryKey: ['credits'] });
  };
  const set = useMutation({
    mutationFn: async (body: components['schemas']['SetBudgetDto']) =>
      unwrap(await api.PUT('/api/budgets', { body })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/api/budgets/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const threshold = String(form.get('threshold') ?? '').trim();
    const timezone = String(form.get('timezone') ?? '').trim();
    set.mutate({
      ...(owner === 'user' ? { scope: 'user' } : { scope: 'key', keyId: owner }),
      ...(timezone ? { timezone } : {}),
      thresholds: threshold ? [Number(threshold)] : [],
      windows: windowsOf(form),
    });
  };
  const keyName = (id: string | null) => keys.data?.find((k) => k.id === id)?.name ?? id;
  const whose = (b: Budget) =>
    b.scope === 'key'
      ? t('budgets.ofKey', { name: keyName(b.keyId) })
      : t(`dashboard.scope.${b.scope}`);
  const windowText = (w: BudgetWindow) =>
    t('budgets.windowLimit', {
      window: t(`dashboard.window.${w.window}`, { count: w.hours ?? 0 }),
      limit: w.limit,
    });

  return (
    <>
      <Title order={1} mb="md">
        {t('budgets.title')}
      </Title>
      <LimitsCard />
      <Card withBorder mb="lg">
        <Title order={2} size="h3" mb="xs">
          {t('budgets.mine')}
        </Title>
        <ErrorNote error={budgets.error ?? keys.error ?? remove.error} />
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('budgets.whose')}</Table.Th>
              <Table.Th>{t('budgets.windows')}</Table.Th>
              <Table.Th>{t('budgets.timezone')}</Table.Th>
              <Table.Th>{t('budgets.delete')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {budgets.data?.map((b) => (
              <Table.Tr key={b.id}>
                <Table.Td>{whose(b)}</Table.Td>
                <Table.Td>{b.windows.map(windowText).join(', ')}</Table.Td>
                <Table.Td>{b.timezone}</Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    variant="outline"
                    color="red.9"
                    aria-label={t('budgets.deleteOf', { whose: whose(b) })}
                    onClick={() => remove.mutate(b.id)}
                  >
                    {t('budgets.delete')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {budgets.data?.length === 0 && t('budgets.none')}
      </Card>
      <Card withBorder>
        <Title order={2} size="h3" mb="xs">
          {t('budgets.set')}
        </Title>
        <ErrorNote error={set.error} />
        <form onSubmit={submit}>
          <Select
            label={t('budgets.whose')}
            data={[
              { value: 'user', label: t('dashboard.scope.user') },
              ...(keys.data ?? []).map((k) => ({
                value: k.id,
                label: t('budgets.ofKey', { name: k.name }),
              })),
            ]}
            value={owner}
            allowDeselect={false}
            onChange={(v) => v && setOwner(v)}
            mb="sm"
            maw={320}
          />
          <SimpleGrid cols={{ base: 1, sm: 3 }} mb="sm">
            {KINDS.map((kind) => (
              <TextInput
                key={kind}
                name={`limit-${kind}`}
                type="number"
                min={0}
                label={t('budgets.limitOf', { window: t(`dashboard.window.${kind}`) })}
              />
            ))}
            <TextInput name="hours" type="number" min={1} label={t('budgets.hours')} />
            <TextInput name="limit-hours" type="number" min={0} label={t('budgets.hoursLimit')} />
            <TextInput
              name="threshold"
              type="number"
              min={1}
              max={99}
              label={t('budgets.threshold')}
            />
            <TextInput name="timezone" label={t('budgets.timezone')} placeholder="Asia/Shanghai" />
          </SimpleGrid>
          <Group>
            <Button type="submit" loading={set.isPending}>
              {t('budgets.save')}
            </Button>
          </Group>
        </form>
      </Card>
    </>
  );
}
