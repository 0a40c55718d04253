import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

/**
 * Markdown from run tasks (outcome bodies, HCP Terraform renders them as Markdown) shown as formatted
 * text, safely: `marked` turns it into HTML in which raw HTML of the source is escaped (it shows as text,
 * never as markup), then DOMPurify removes anything that is not plain formatting (scripts, event
 * handlers, `javascript:` links, styles, images that would load from another host). Links open in a new tab
 * without the opener or a referrer.
 */
const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => escapes[character]!);

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text),
  },
});

let hooked = false;
function purifier() {
  if (!hooked) {
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer');
      }
    });
    hooked = true;
  }
  return DOMPurify;
}

/** The sanitized HTML of a Markdown text (exported for tests). */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source) as string;
  return purifier().sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ['img', 'style', 'form', 'input', 'button'], FORBID_ATTR: ['style', 'class', 'id'] });
}

/** Markdown as formatted, sanitized text. */
export function Markdown(props: { source: string; class?: string }) {
  return <div class={['markdown', props.class].filter(Boolean).join(' ')} dangerouslySetInnerHTML={{ __html: renderMarkdown(props.source) }} />;
}
