import { Button, Group, NumberInput, Select, Switch, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { components } from '../../api/schema';

type Upstream = components['schemas']['UpstreamDto'];
export type UpstreamInput = components['schemas']['CreateUpstreamDto'];
const PROVIDERS: UpstreamInput['provider'][] = [
  'openai',
  'anthropic',
  'google',
  'openai-compatible',
];

/**
 * The fields of an upstream, empty to add one or filled from `upstream` to change it. The key
 * is write-only: left empty on a change, the stored key stays.
 */
export function UpstreamForm({
  upstream,
  busy,
  onSave,
  onCancel,
}: {
  upstream?: Upstream;
  busy: boolean;
  onSave: (input: UpstreamInput) => void;
  onCancel?: () => void;
}) {
  const { t } = useTranslation();
  const [provider, setProvider] = useState<UpstreamInput['provider']>(
    upstream?.provider ?? 'openai',
  );
  const [enabled, setEnabled] = useState(upstream?.enabled ?? true);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const models = text('models')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    const apiKey = text('apiKey');
    onSave({
      provider,
      name: text('name'),
      baseUrl: text('baseUrl'),
      ...(apiKey ? { apiKey } : {}),
      models,
      priority: Number(text('priority') || 0),
      weight: Number(text('weight') || 1),
      enabled,
    });
  };
  return (
    <form
      onSubmit={submit}
      aria-label={upstream ? t('admin.upstreams.edit') : t('admin.upstreams.add')}
    >
      <Group align="end">
        <Select
          label={t('admin.upstreams.provider')}
          data={PROVIDERS}
          value={provider}
          onChange={(v) => v && setProvider(v as UpstreamInput['provider'])}
          allowDeselect={false}
          disabled={!!upstream}
        />
        <TextInput
          name="name"
          label={t('auth.name')}
          description={t('admin.upstreams.nameHint')}
          defaultValue={upstream?.name}
          required
          maxLength={64}
        />
        <TextInput
          name="baseUrl"
          label={t('admin.upstreams.baseUrl')}
          defaultValue={upstream?.baseUrl ?? ''}
          required
          type="url"
          w={280}
        />
        <TextInput
          name="apiKey"
          label={t('admin.upstreams.apiKey')}
          type="password"
          autoComplete="off"
        />
        <TextInput
          name="models"
          label={t('admin.upstreams.models')}
          description={t('admin.upstreams.modelsHint')}
          defaultValue={upstream?.models.join(', ')}
          w={260}
        />
        <NumberInput
          name="priority"
          label={t('admin.upstreams.priority')}
          defaultValue={upstream?.priority ?? 0}
          w={100}
        />
        <NumberInput
          name="weight"
          label={t('admin.upstreams.weight')}
          defaultValue={upstream?.weight ?? 1}
          min={1}
          w={100}
        />
        <Switch
          label={t('admin.upstreams.enabled')}
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
          mb={8}
        />
        <Button type="submit" loading={busy}>
          {upstream ? t('admin.save') : t('admin.upstreams.add')}
        </Button>
        {onCancel && (
          <Button variant="outline" onClick={onCancel}>
            {t('admin.cancel')}
          </Button>
        )}
      </Group>
    </form>
  );
}
