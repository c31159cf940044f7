import { Button, Card, Group, Select, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { AuditTable, type AuditFilter } from './AuditTable';

const ACTIONS: NonNullable<AuditFilter['action']>[] = [
  'user.role.change',
  'user.plan.change',
  'user.credits.adjust',
  'user.email.change',
  'user.social_takeover',
  'payment.refund',
  'credits.purchase.grant',
  'credits.refund.clawback',
  'credits.dispute.clawback',
  'credits.dispute.restore',
  'two_factor.reset',
  'api_key.create',
  'api_key.revoke',
  'team.ownership.change',
  'plugin.register',
  'upstream.create',
  'upstream.update',
  'upstream.delete',
];

/** A `datetime-local` value as an ISO instant, or nothing when empty. */
const instant = (value: FormDataEntryValue | null) =>
  value ? new Date(String(value)).toISOString() : undefined;

/**
 * `/{locale}/admin/audit`: the audit log filtered by actor (a user id), action and a time
 * range (`from` inclusive, `to` exclusive), newest first.
 */
export default function AdminAudit() {
  const { t } = useTranslation();
  const [action, setAction] = useState<string | null>(null);
  const [filter, setFilter] = useState<AuditFilter>({});
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const actorId = String(form.get('actorId') ?? '').trim();
    const next: AuditFilter = {};
    if (actorId) next.actorId = actorId;
    if (action) next.action = action as AuditFilter['action'];
    const from = instant(form.get('from'));
    const to = instant(form.get('to'));
    if (from) next.from = from;
    if (to) next.to = to;
    setFilter(next);
  };
  return (
    <>
      <Title order={1} mb="md">
        {t('admin.audit.title')}
      </Title>
      <form onSubmit={submit} aria-label={t('admin.audit.filters')}>
        <Group align="end" mb="md">
          <TextInput name="actorId" label={t('admin.audit.actorId')} w={300} />
          <Select
            label={t('admin.audit.action')}
            data={ACTIONS}
            value={action}
            onChange={setAction}
            clearable
            searchable
          />
          <TextInput type="datetime-local" name="from" label={t('admin.from')} />
          <TextInput type="datetime-local" name="to" label={t('admin.to')} />
          <Button type="submit">{t('admin.apply')}</Button>
        </Group>
      </form>
      <Card withBorder>
        <AuditTable filter={filter} />
      </Card>
    </>
  );
}
