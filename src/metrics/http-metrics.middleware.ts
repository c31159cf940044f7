import type { NextFunction, Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import type { MetricsService } from './metrics.service';

/**
 * RED metrics of every HTTP request: duration by method, route template (Express'
 * matched `req.route.path`, never the raw path, so ids cannot blow up the label set; `unmatched`
 * when no route matched) and status class.
 */
export function httpMetrics(metrics: MetricsService) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = performance.now();
    res.once('finish', () => {
      const route = (req.route as { path?: unknown } | undefined)?.path;
      metrics.httpDuration.observe(
        {
          method: req.method,
          route: typeof route === 'string' ? route : 'unmatched',
          status_class: `${Math.floor(res.statusCode / 100)}xx`,
        },
        (performance.now() - start) / 1000,
      );
    });
    next();
  };
}
