import { AggregatorRegistry } from 'prom-client';
import { MetricsService } from './metrics.service';

/** Two workers' registries summed the way the cluster primary does (AggregatorRegistry). */
describe('MetricsService across workers', () => {
  it('sums counters and takes one worker’s value of the database gauges', async () => {
    const workers = [new MetricsService(), new MetricsService()];
    const holds = 3;
    for (const [i, w] of workers.entries()) {
      w.creditsGrantedOf('PURCHASE', 100 * (i + 1));
      w.webhookEvents.inc({ type: 'payment_intent.succeeded', outcome: 'processed' });
      // Both workers read the same rows: the same value, which must not be doubled.
      w.gauge('credit_holds_open', 'holds', [], async (g) => g.set(holds));
      w.gauge(
        'db_pool_connections',
        'pool',
        ['state'],
        async (g) => g.set({ state: 'in_use' }, 2),
        'sum',
      );
    }
    const merged = AggregatorRegistry.aggregate(
      await Promise.all(workers.map((w) => w.registry.getMetricsAsJSON())),
    );
    const value = async (name: string) => (await merged.getSingleMetric(name)!.get()).values;
    expect(await value('credits_granted_total')).toEqual([
      expect.objectContaining({ labels: { type: 'PURCHASE' }, value: 300 }),
    ]);
    expect(await value('webhook_events_total')).toEqual([expect.objectContaining({ value: 2 })]);
    expect((await value('credit_holds_open'))[0].value).toBe(3);
    expect((await value('db_pool_connections'))[0]).toEqual(
      expect.objectContaining({ labels: { state: 'in_use' }, value: 4 }),
    );
  });
});
