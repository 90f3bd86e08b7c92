import { ArmatureError } from '../../src/kernel/errors.ts';

const CHUNK = 0x8000;

/** Base64 of `bytes` (atob/btoa exist in Node 20 and every browser). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** Bytes of base64 `text`; throws `INVALID_BASE64` naming where it went wrong. */
export function fromBase64(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text.replace(/\s+/g, ''));
  } catch {
    throw new ArmatureError('INVALID_BASE64', `[workspace] content is not valid base64 (starts ${JSON.stringify(text.slice(0, 20))})`, {
      hint: 'Send base64 text, or use encoding "utf8" for plain text.',
    });
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** `bytes` as UTF-8 text, or `undefined` when they are not valid UTF-8. */
export function tryDecodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}
