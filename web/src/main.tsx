import '@mantine/core/styles.css';
import { createTheme, InputWrapper, MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import './i18n';
import { AppRoutes } from './routes';

/** Retries only failures that may pass (network, 5xx), never a 4xx answer. */
const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, err) => count < 2 && !((err as { status?: number }).status! < 500),
      refetchOnWindowFocus: false,
    },
  },
});

// Darker shades than Mantine's defaults (primary, input descriptions) keep text above 4.5:1.
const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  components: {
    InputWrapper: InputWrapper.extend({
      styles: { description: { color: 'var(--mantine-color-dark-6)' } },
    }),
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light">
      <QueryClientProvider client={queryClient}>
        <BrowserRouter>
          <AppRoutes />
        </BrowserRouter>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
