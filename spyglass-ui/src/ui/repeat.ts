/** Reading something from the service again and again while a page shows it. */
import { useEffect } from 'preact/hooks';

/**
 * Calls `read` now and again `everyMs` after each answer (or failure) while the component is shown
 * and `deps` stay the same; `read` is given whether the page still wants its answer (false once the
 * component is gone or `deps` changed), so that a late answer is dropped.
 */
export function useRepeatedRead(read: (wanted: () => boolean) => Promise<unknown>, everyMs: number, deps: readonly unknown[]) {
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const wanted = () => !stopped;
    const once = () =>
      read(wanted).finally(() => {
        if (!stopped) timer = setTimeout(once, everyMs);
      });
    once();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, deps);
}
