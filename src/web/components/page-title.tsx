import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';

/**
 * The page's h1; also the document title. Focus moves to it when the page changes, so keyboard and
 * screen-reader users start at the new page instead of the link they followed.
 */
export function PageTitle(props: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.children} · Teamstage`;
  }, [props.children]);
  // Only when the page appears: a title that changes after a save must not take focus from the form. Before
  // it is painted (a layout effect), so focus is where it belongs once the page shows, not a frame later.
  useLayoutEffect(() => ref.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {props.children}
    </h1>
  );
}
