import { Alert, Button, Card, Checkbox, Group, SimpleGrid, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorNote } from '../../components/ErrorNote';

type CreateBatch = components['schemas']['CreateRedemptionBatchDto'];

/** The batch the form's fields describe; an empty expiry is none, a local time is sent in UTC. */
function batchOf(form: FormData): CreateBatch {
  const text = (name: string) => String(form.get(name) ?? '').trim();
  const expires = text('expiresAt');
  return {
    name: text('name'),
    credits: Number(text('credits')),
    quantity: Number(text('quantity')),
    usesPerCode: Number(text('usesPerCode') || 1),
    onePerUser: form.get('onePerUser') === 'on',
    ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
  };
}

/**
 * Making a batch of redemption codes (`POST /api/admin/redemption-batches`): its name, the
 * credits a use grants, how many codes, an optional expiry, the uses per code and whether a
 * user may use a code once only. The answer never holds the codes: they are exported once.
 */
export function RedemptionBatchForm() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: async (body: CreateBatch) =>
      unwrap(await api.POST('/api/admin/redemption-batches', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'redemption'] }),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    create.mutate(batchOf(new FormData(e.currentTarget)));
  };

  return (
    <Card withBorder>
      <Title order={2} size="h3" mb="sm">
        {t('admin.redemption.create')}
      </Title>
      <ErrorNote error={create.error} />
      {create.data && (
        <Alert color="green" role="status" mb="sm">
          {t('admin.redemption.created', { name: create.data.name, count: create.data.quantity })}
        </Alert>
      )}
      <form onSubmit={submit}>
        <SimpleGrid cols={{ base: 1, sm: 3 }} mb="sm">
          <TextInput name="name" label={t('admin.redemption.name')} maxLength={100} required />
          <TextInput
            name="credits"
            type="number"
            min={1}
            max={1_000_000}
            label={t('admin.redemption.credits')}
            required
          />
          <TextInput
            name="quantity"
            type="number"
            min={1}
            max={10_000}
            label={t('admin.redemption.quantity')}
            required
          />
          <TextInput
            name="usesPerCode"
            type="number"
            min={1}
            max={10_000}
            defaultValue={1}
            label={t('admin.redemption.usesPerCode')}
          />
          <TextInput
            name="expiresAt"
            type="datetime-local"
            label={t('admin.redemption.expiresAt')}
            description={t('admin.redemption.expiresHint')}
          />
        </SimpleGrid>
        <Checkbox
          name="onePerUser"
          defaultChecked
          label={t('admin.redemption.onePerUser')}
          mb="sm"
        />
        <Group>
          <Button type="submit" loading={create.isPending}>
            {t('admin.redemption.make')}
          </Button>
        </Group>
      </form>
    </Card>
  );
}
