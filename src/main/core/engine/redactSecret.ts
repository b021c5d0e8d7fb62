/** Shorter runs of a key's characters tell too little of it to hide (and would hide ordinary words). */
const MIN_FRAGMENT = 8;
export const REDACTED = '[redacted]';

/** ASCII letters only, so every index of the text is the same in its folded copy. */
function fold(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/**
 * `text` without `secret` in any form that could help find it: the whole of it or any run of 8 or more of
 * its characters (a prefix, a tail), in any letter case, as written or URL-encoded. Each such stretch of the
 * text becomes `[redacted]`.
 */
export function redactSecret(text: string, secret: string): string {
  const size = Math.min(MIN_FRAGMENT, secret.length);
  if (size === 0) return text;
  // Every run of `size` characters of the secret's forms: a stretch of text made of them is part of one.
  const runs = new Set<string>();
  for (const form of new Set([secret, encodeURIComponent(secret)].map(fold))) {
    for (let i = 0; i + size <= form.length; i++) runs.add(form.slice(i, i + size));
  }
  const folded = fold(text);
  let out = '';
  let copiedTo = 0;
  let hiddenTo = -1;
  for (let i = 0; i + size <= folded.length; i++) {
    if (!runs.has(folded.slice(i, i + size))) continue;
    if (i > hiddenTo) {
      out += `${text.slice(copiedTo, i)}${REDACTED}`;
    }
    hiddenTo = i + size;
    copiedTo = hiddenTo;
  }
  return copiedTo === 0 ? text : out + text.slice(copiedTo);
}
