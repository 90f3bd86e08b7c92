/**
 * Which package installs may reach the network: the same policy as Python's `fetch` (the
 * persona's `network`), with the configured package index (the pinned CDN folder, or a mirror) as
 * the allowed default. Checked by the host before anything is fetched (`installPackage` of both
 * isolations, so `execute_python`'s `install_packages` and `install_python_package` alike): a
 * wheel URL elsewhere would let code send anything to anyone in its path (issue 28).
 *
 * - A name (`numpy`, `my-pkg`) installs through the package index's lock file (or micropip, whose
 *   own requests go through Python's policed `fetch`): allowed.
 * - An http(s) URL: allowed under the package index's folder, or when the network policy allows
 *   its origin; anything else is refused with the reason.
 * - Node: an absolute path or a `file:` URL is read by the host, not fetched: allowed.
 * - Any other reference (another scheme, a relative wheel path, `//host/...`): refused.
 */
import { networkAllows } from '../../../src/sandbox/network-policy.ts';
import type { NetworkPolicy } from '../../../src/sandbox/protocol.ts';
import type { PythonErrorInfo } from './protocol.ts';

/** What an install refused by the policy answers: the error and what to do instead. */
export interface InstallRefusal {
  error: PythonErrorInfo;
  hint: string;
}

/**
 * Why installing `spec` may not happen under `network` with the package index at
 * `packageIndexURL` (a folder URL ending in `/`), or undefined when it may. `node`: whether local
 * paths are the host's to read (Node) rather than URLs of the page (browsers).
 */
export function installRefusal(spec: string, network: NetworkPolicy, packageIndexURL: string, node: boolean): InstallRefusal | undefined {
  const source = spec.trim();
  const index = packageIndexURL.endsWith('/') ? packageIndexURL : `${packageIndexURL}/`;
  const shown = JSON.stringify(source.length > 200 ? `${source.slice(0, 200)}…` : source);
  const refuse = (why: string): InstallRefusal => ({
    error: { type: 'NETWORK_DENIED', message: `installing ${shown} was refused: ${why}`, traceback: '' },
    hint: `Install by name from the package index (${index}) or a wheel under it, pass a wheel's bytes${node ? ' or a local path' : ''}, or add the wheel's origin to the persona's "network".`,
  });
  if (/^https?:\/\//i.test(source)) {
    let url: URL;
    try {
      url = new URL(source);
    } catch {
      return refuse('it is not a valid URL');
    }
    if (url.href.startsWith(index) || networkAllows(network, url.href)) return undefined;
    const allowed = network === 'none' ? 'no origin' : network.join(', ');
    return refuse(`it is not under the package index (${index}), and the network policy allows ${allowed}`);
  }
  // `//host/...` is a URL to a browser and a path to Node: neither is worth the doubt.
  if (node && !source.startsWith('//') && (source.startsWith('/') || /^file:/i.test(source) || /^[A-Za-z]:[\\/]/.test(source))) return undefined;
  if (/^[A-Za-z][\w+.-]*:/.test(source) || source.startsWith('//') || /\.whl(\?.*)?$/i.test(source)) {
    return refuse(node ? 'only package names, http(s) URLs and absolute local paths can be installed' : 'only package names and http(s) URLs can be installed');
  }
  return undefined;
}
