import {
  Alert,
  Button,
  Card,
  Checkbox,
  Code,
  Group,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorNote } from '../components/ErrorNote';

type Scope = components['schemas']['ApiKeyDto']['scopes'][number];
const SCOPES: Scope[] = ['ai', 'chats:read', 'chats:write', 'credits:read'];

/**
 * API keys: create one (`POST /api/keys`, name and scopes; the secret is shown once, from that
 * answer only), list them (`GET /api/keys`, never secrets), revoke one (`DELETE /api/keys/{id}`).
 */
export function KeysPanel() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const [scopes, setScopes] = useState<string[]>(['ai', 'chats:read']);
  const keys = useQuery({
    queryKey: ['keys'],
    queryFn: async () => unwrap(await api.GET('/api/keys')).keys,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['keys'] });
  const create = useMutation({
    mutationFn: async (name: string) =>
      unwrap(await api.POST('/api/keys', { body: { name, scopes: scopes as Scope[] } })),
    onSuccess: refresh,
  });
  const revoke = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.DELETE('/api/keys/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const when = (iso: string | null) =>
    iso ? new Date(iso).toLocaleString(i18n.language) : t('settings.never');

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    create.mutate(String(new FormData(form).get('name')).trim(), { onSuccess: () => form.reset() });
  };

  return (
    <Card withBorder mb="lg">
      <Title order={2} size="h3" mb="sm">
        {t('settings.keys')}
      </Title>
      <form onSubmit={submit}>
        <Group align="end" mb="sm">
          <TextInput name="name" label={t('settings.keyName')} required maxLength={100} />
          <Checkbox.Group label={t('settings.scopes')} value={scopes} onChange={setScopes}>
            <Group mt={6}>
              {SCOPES.map((s) => (
                <Checkbox key={s} value={s} label={s} />
              ))}
            </Group>
          </Checkbox.Group>
          <Button type="submit" loading={create.isPending}>
            {t('settings.create')}
          </Button>
        </Group>
      </form>
      <ErrorNote error={create.error ?? revoke.error ?? keys.error} />
      {create.data && (
        <Alert color="yellow" title={t('settings.secret')} mb="sm" role="status">
          <Text size="sm">{t('settings.secretOnce')}</Text>
          <Code block data-testid="new-key">
            {create.data.key}
          </Code>
        </Alert>
      )}
      {keys.data?.length === 0 && <Text>{t('settings.noKeys')}</Text>}
      {!!keys.data?.length && (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('settings.keyName')}</Table.Th>
              <Table.Th>{t('settings.prefix')}</Table.Th>
              <Table.Th>{t('settings.scopes')}</Table.Th>
              <Table.Th>{t('settings.lastUsed')}</Table.Th>
              <Table.Th>{t('settings.revoke')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {keys.data.map((key) => (
              <Table.Tr key={key.id}>
                <Table.Td>{key.name}</Table.Td>
                <Table.Td>
                  <Code>{key.prefix}</Code>
                </Table.Td>
                <Table.Td>{key.scopes.join(', ')}</Table.Td>
                <Table.Td>{when(key.lastUsedAt)}</Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    color="red.9"
                    variant="outline"
                    aria-label={t('settings.revokeKey', { name: key.name })}
                    onClick={() => revoke.mutate(key.id)}
                  >
                    {t('settings.revoke')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
