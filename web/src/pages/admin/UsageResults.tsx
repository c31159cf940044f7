import { BarChart } from '@mantine/charts';
import '@mantine/charts/styles.css';
import { Anchor, Button, Card, Table, Text } from '@mantine/core';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { UsageGroup, UsageRow } from './usage-query';

/**
 * What a group is called on screen and in the CSV: its label (email, team or key name, model,
 * day); for a null group "(session)" by key, else "(none)"; for a deleted user, team or key
 * "(deleted …)" with the start of its id.
 */
export function usageLabel(t: TFunction, groupBy: UsageGroup, row: UsageRow): string {
  if (row.label) return row.label;
  if (row.key === null) return t(groupBy === 'key' ? 'admin.usage.session' : 'admin.usage.none');
  return t('admin.usage.deleted', { id: row.key.slice(0, 8) });
}

/**
 * The groups of a usage query as a bar chart of credits and a table. By user or team, a
 * group's name narrows the explorer to it (`onPick`); `onMore` loads the next page.
 */
export function UsageResults(props: {
  groupBy: UsageGroup;
  rows: UsageRow[];
  totals: { requests: number; credits: number };
  onPick?: (row: UsageRow, label: string) => void;
  onMore?: () => void;
}) {
  const { t, i18n } = useTranslation();
  const { groupBy, rows, onPick } = props;
  const number = new Intl.NumberFormat(i18n.language);
  const shown = rows.map((r) => ({ ...r, name: usageLabel(t, groupBy, r) }));
  const pickable = (r: UsageRow) =>
    !!onPick && r.key !== null && (groupBy === 'user' || groupBy === 'team');

  return (
    <Card withBorder>
      <Text size="sm" mb="sm" data-testid="usage-totals">
        {t('dashboard.usageTotal', {
          credits: number.format(props.totals.credits),
          requests: number.format(props.totals.requests),
        })}
      </Text>
      {shown.length === 0 ? (
        <Text>{t('admin.usage.empty')}</Text>
      ) : (
        <>
          <BarChart
            h={240}
            data={shown.map((r) => ({
              name: groupBy === 'day' ? r.name.slice(5) : r.name,
              credits: r.credits,
            }))}
            dataKey="name"
            series={[{ name: 'credits', label: t('dashboard.creditsUsed'), color: 'indigo.8' }]}
            aria-label={t('admin.usage.chart')}
            role="img"
          />
          <Table.ScrollContainer minWidth={640} mt="md">
            <Table data-testid="usage-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t(`admin.usage.by.${groupBy}`)}</Table.Th>
                  <Table.Th>{t('admin.usage.requests')}</Table.Th>
                  <Table.Th>{t('admin.usage.prompt')}</Table.Th>
                  <Table.Th>{t('admin.usage.completion')}</Table.Th>
                  <Table.Th>{t('admin.usage.cached')}</Table.Th>
                  <Table.Th>{t('dashboard.creditsUsed')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {shown.map((r) => (
                  <Table.Tr key={r.key ?? ''}>
                    <Table.Td>
                      {pickable(r) ? (
                        <Anchor
                          component="button"
                          type="button"
                          c="indigo.9"
                          onClick={() => onPick?.(r, r.name)}
                          title={t('admin.usage.narrow', { name: r.name })}
                        >
                          {r.name}
                        </Anchor>
                      ) : (
                        r.name
                      )}
                    </Table.Td>
                    <Table.Td>{number.format(r.requests)}</Table.Td>
                    <Table.Td>{number.format(r.promptTokens)}</Table.Td>
                    <Table.Td>{number.format(r.completionTokens)}</Table.Td>
                    <Table.Td>{number.format(r.cachedTokens)}</Table.Td>
                    <Table.Td>{number.format(r.credits)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
      {props.onMore && (
        <Button mt="sm" variant="outline" onClick={props.onMore}>
          {t('admin.more')}
        </Button>
      )}
    </Card>
  );
}
