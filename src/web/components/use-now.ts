import { useEffect, useState } from 'preact/hooks';

/** The current time, renewed every `everyMs` while the component is shown, so "3 min ago" stays true on an open page. */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
