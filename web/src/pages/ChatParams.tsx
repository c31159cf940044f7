import { Group, MultiSelect, NumberInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';

/** What a chat request may carry besides the messages; unset values stay the chat's own. */
export interface ChatOptions {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  plugins?: string[];
}

/** A number field's value, or nothing when it is empty. */
const num = (v: string | number) => (typeof v === 'number' ? v : undefined);

/**
 * The parameters sent with each message: temperature, top-p, maximum length, and the plugins
 * (`GET /api/plugins`, available ones) whose tools the model may call. Until the plugins are
 * touched no list goes, so the chat's own applies; an emptied list turns them all off.
 */
export function ChatParams(props: { value: ChatOptions; onChange: (v: ChatOptions) => void }) {
  const { t } = useTranslation();
  const { value, onChange } = props;
  const plugins = useQuery({
    queryKey: ['plugins'],
    queryFn: async () => unwrap(await api.GET('/api/plugins')).plugins,
  });
  const set = (patch: ChatOptions) => onChange({ ...value, ...patch });
  return (
    <Group align="end" mb="md" role="group" aria-label={t('chatParams.title')}>
      <NumberInput
        label={t('chatParams.temperature')}
        min={0}
        max={2}
        step={0.1}
        decimalScale={2}
        value={value.temperature ?? ''}
        onChange={(v) => set({ temperature: num(v) })}
        w={130}
      />
      <NumberInput
        label={t('chatParams.topP')}
        min={0}
        max={1}
        step={0.05}
        decimalScale={2}
        value={value.topP ?? ''}
        onChange={(v) => set({ topP: num(v) })}
        w={110}
      />
      <NumberInput
        label={t('chatParams.maxTokens')}
        min={1}
        max={100000}
        allowDecimal={false}
        value={value.maxTokens ?? ''}
        onChange={(v) => set({ maxTokens: num(v) })}
        w={160}
      />
      <MultiSelect
        label={t('chatParams.plugins')}
        placeholder={plugins.data?.length ? undefined : t('chatParams.noPlugins')}
        data={(plugins.data ?? [])
          .filter((p) => p.available)
          .map((p) => ({ value: p.name, label: p.name }))}
        value={value.plugins ?? []}
        onChange={(names) => set({ plugins: names })}
        w={240}
      />
    </Group>
  );
}
