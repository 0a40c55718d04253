import { useEffect, useRef } from 'preact/hooks';

/**
 * The page's h1; also the document title. Focus moves to it when the page changes, so keyboard and
 * screen-reader users start at the new page instead of the link they followed.
 */
export function PageTitle(props: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.children} · Teamstage`;
    ref.current?.focus();
  }, [props.children]);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {props.children}
    </h1>
  );
}
