import {
  Alert,
  Button,
  Card,
  Group,
  NumberInput,
  Select,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { ErrorNote } from '../components/ErrorNote';
import { useSession } from '../session';

type Prefs = components['schemas']['UpdatePreferencesDto'];

/**
 * Profile and preferences: my name (`PUT /api/user/profile`), and language, theme, default
 * model, temperature, maximum length and system prompt (`PUT /api/user/preferences`).
 */
export function ProfilePanel() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const user = useSession();
  const prefs = useQuery({
    queryKey: ['preferences'],
    queryFn: async () => unwrap(await api.GET('/api/user/preferences')),
  });
  const models = useQuery({
    queryKey: ['models'],
    queryFn: async () => unwrap(await api.GET('/api/ai/models')).models,
  });
  const [draft, setDraft] = useState<Prefs>({});
  const save = useMutation({
    mutationFn: async ({ name, preferences }: { name: string; preferences: Prefs }) => {
      unwrap(await api.PUT('/api/user/profile', { body: { name } }));
      return unwrap(await api.PUT('/api/user/preferences', { body: preferences }));
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['session'] }),
  });
  if (!prefs.data || !user.data) return <ErrorNote error={prefs.error ?? user.error} />;
  const value = { ...prefs.data, ...draft };
  const set = (patch: Prefs) => setDraft((d) => ({ ...d, ...patch }));
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget).get('name')).trim();
    save.mutate({ name, preferences: draft });
  };

  return (
    <Card withBorder mb="lg">
      <Title order={2} size="h3" mb="sm">
        {t('account.profile')}
      </Title>
      <form onSubmit={submit}>
        <Group align="end">
          <TextInput
            name="name"
            label={t('auth.name')}
            defaultValue={user.data.name ?? ''}
            maxLength={100}
          />
          <Select
            label={t('account.language')}
            data={[
              { value: 'en', label: 'English' },
              { value: 'zh', label: '中文' },
            ]}
            value={value.locale ?? null}
            onChange={(locale) => set({ locale: locale as Prefs['locale'] })}
            clearable
          />
          <Select
            label={t('account.theme')}
            data={(['system', 'light', 'dark'] as const).map((v) => ({
              value: v,
              label: t(`account.themes.${v}`),
            }))}
            value={value.theme ?? 'system'}
            allowDeselect={false}
            onChange={(theme) => set({ theme: theme as Prefs['theme'] })}
          />
          <Select
            label={t('account.defaultModel')}
            data={(models.data ?? []).map((m) => ({ value: m.id, label: m.name }))}
            value={value.defaultModelId ?? null}
            onChange={(defaultModelId) => set({ defaultModelId })}
            clearable
          />
          <NumberInput
            label={t('account.temperature')}
            value={value.temperature ?? ''}
            onChange={(v) => set({ temperature: v === '' ? null : Number(v) })}
            min={0}
            max={2}
            step={0.1}
            decimalScale={2}
            w={120}
          />
          <NumberInput
            label={t('account.maxTokens')}
            value={value.maxTokens ?? ''}
            onChange={(v) => set({ maxTokens: v === '' ? null : Number(v) })}
            min={1}
            allowDecimal={false}
            w={140}
          />
        </Group>
        <Textarea
          label={t('account.systemPrompt')}
          value={value.systemPrompt ?? ''}
          onChange={(e) => set({ systemPrompt: e.currentTarget.value || null })}
          autosize
          minRows={2}
          mt="sm"
        />
        <Button type="submit" mt="sm" loading={save.isPending}>
          {t('account.save')}
        </Button>
      </form>
      <ErrorNote error={save.error} />
      {save.isSuccess && (
        <Alert color="green" role="status" mt="sm">
          {t('account.saved')}
        </Alert>
      )}
    </Card>
  );
}
