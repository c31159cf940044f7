/** The part of autocannon's programmatic API the bench uses (the package ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    timeout?: number;
    setupClient?: (client: any) => void;
  }
  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    requests: { average: number; total: number };
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
