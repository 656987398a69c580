/**
 * Contract names: the root file's basename without `.yaml/.yml/.json`, kebab-cased — unless that
 * name says nothing (`openapi.yaml`, `asyncapi.json`, `api-v1.yaml`, …: two vendors' files would
 * collide in one output folder), then the document's `info.title`, kebab-cased.
 */
import path from 'node:path';

function kebab(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const GENERIC =
  /^(open-?api|async-?api|swagger|api|apis|spec|specs|specification|schema|index|main|webhooks?|callbacks?|events?|contract|definition|document|doc|root)(-v?\d+(-\d+)*)?$/;

export function contractName(file: string, title?: string): string {
  const base = kebab(path.basename(file).replace(/\.(ya?ml|json)$/i, ''));
  if (GENERIC.test(base) && title !== undefined) {
    const fromTitle = kebab(title).slice(0, 64).replace(/-+$/, '');
    if (fromTitle !== '' && !GENERIC.test(fromTitle)) return fromTitle;
  }
  return base === '' ? 'contract' : base;
}
