import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../api/client';
import type { components } from '../api/schema';
import type { ChatOptions } from './ChatParams';

type Settings = components['schemas']['ChatSettingsDto'];
type Chat = components['schemas']['ChatDto'];

/** The settings the parameters panel edits; the others (system prompt, stop, …) stay as stored. */
const PANEL = ['modelId', 'temperature', 'topP', 'maxTokens', 'plugins'] as const;
/** Quiet time after the last change before it is saved (one PATCH while typing a number). */
const SAVE_AFTER_MS = 400;

/** The panel's values of stored settings. */
function optionsOf(s: Settings | undefined): ChatOptions {
  return {
    temperature: s?.temperature,
    topP: s?.topP,
    maxTokens: s?.maxTokens,
    plugins: s?.plugins,
  };
}

/** The stored settings with the panel's values in place of theirs (an emptied field drops it). */
function merged(stored: Settings | undefined, modelId: string, o: ChatOptions): Settings {
  const next: Record<string, unknown> = { ...stored };
  for (const key of PANEL) delete next[key];
  const panel: Settings = { modelId, ...o };
  for (const [key, value] of Object.entries(panel)) if (value !== undefined) next[key] = value;
  return next as Settings;
}

/**
 * The model and parameters of a chat (`settings` of `GET /api/chats/{id}`), which the panel
 * starts from when a chat is reopened and saves to the chat (`PATCH /api/chats/{id}`): a change
 * on a saved chat once typing pauses, and for a new chat the values of its first message once
 * the reply has created it (`created`). Only the chat's owner saves (a team member reads them).
 * `fallbackModel` is the model shown when neither the chat nor the user chose one.
 */
export function useChatSettings(props: {
  chatId: string;
  chat: Chat | undefined;
  owner: boolean;
  fallbackModel: string;
}) {
  const { chatId, chat, owner } = props;
  const queryClient = useQueryClient();
  const stored = chat?.settings;
  const [modelId, setModelId] = useState<string>();
  const [options, setOptions] = useState<ChatOptions>();
  const [createdHere, setCreatedHere] = useState(false);
  const exists = createdHere || !!chat;
  // Read by `created`, which a stream's callback may hold from an earlier render.
  const existsNow = useRef(exists);
  existsNow.current = exists;
  // Bumped by every change to save; `saved` is the last version the service has.
  const [version, setVersion] = useState(0);
  const [saved, setSaved] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const chosen = modelId ?? stored?.modelId ?? props.fallbackModel;
  const current = options ?? optionsOf(stored);

  useEffect(() => {
    if (!exists || !owner || version === saved || !chosen) return;
    const settings = merged(stored, chosen, current);
    const timer = setTimeout(() => {
      void (async () => {
        try {
          const res = await api.PATCH('/api/chats/{id}', {
            params: { path: { id: chatId } },
            body: { settings },
          });
          const updated = unwrap(res).data;
          queryClient.setQueryData(['chat', chatId], (old: Chat | undefined) =>
            old ? { ...old, settings: updated.settings } : old,
          );
          setError(null);
          setSaved(version);
        } catch (e) {
          setError(e);
        }
      })();
    }, SAVE_AFTER_MS);
    return () => clearTimeout(timer);
    // `version` marks every change; the values are read as they are at that version.
  }, [exists, owner, version, saved, chatId]);

  return {
    modelId: chosen,
    options: current,
    error,
    setModelId: (id: string) => {
      setModelId(id);
      setVersion((v) => v + 1);
    },
    setOptions: (o: ChatOptions) => {
      setOptions(o);
      setVersion((v) => v + 1);
    },
    /** The first reply of a new chat has created it: save what its message was sent with. */
    created: () => {
      if (existsNow.current) return;
      existsNow.current = true;
      setCreatedHere(true);
      setVersion((v) => v + 1);
    },
  };
}
