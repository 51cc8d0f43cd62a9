// Print the JavaScript/TypeScript profiles' `common_members`: the member names objects of the language's
// own types have (node's builtins, the DOM's, React's and the test runners' commonest).
// Stage: a generator run by hand when the list is revised (`node scripts/gen_js_common_members.mjs`), not
// product code. The semantic check (merge/checks/sole_members.py) never takes a call of one of these names
// on a receiver of unknown class for a use of the repository's one definition of it.
import { EventEmitter } from "node:events";
import stream from "node:stream";
import http from "node:http";
import net from "node:net";
const protos = [Object, Function, Array, String, Number, Boolean, Symbol, BigInt, Map, Set, WeakMap, WeakSet, Promise, Date,
  RegExp, Error, ArrayBuffer, DataView, Uint8Array, Object.getPrototypeOf(Uint8Array), URL, URLSearchParams, EventEmitter,
  stream.Readable, stream.Writable, stream.Duplex, stream.Transform, http.Server, http.IncomingMessage, http.ServerResponse,
  net.Socket, Buffer, AbortController, AbortSignal, TextEncoder, TextDecoder, Headers, Request, Response, FormData, Blob,
  EventTarget, Event, WeakRef].map(c => c.prototype);
protos.push(Object.getPrototypeOf(function* () {}()), Object.getPrototypeOf(async function* () {}()),
  Object.getPrototypeOf([][Symbol.iterator]()), Object.getPrototypeOf(new Map().entries()));
const statics = [Object, Array, Promise, JSON, Math, Reflect, Number, String, Date, Symbol, console, process, Buffer, Intl];
const names = new Set();
const add = o => { let p = o; while (p && p !== null) { for (const n of Object.getOwnPropertyNames(p)) names.add(n); p = Object.getPrototypeOf(p); } };
protos.forEach(add); statics.forEach(s => Object.getOwnPropertyNames(s).forEach(n => names.add(n)));
// The DOM's and the common test runners' and React's members, which node does not hold.
for (const n of ("addEventListener removeEventListener dispatchEvent querySelector querySelectorAll getElementById " +
  "getElementsByClassName getElementsByTagName appendChild removeChild insertBefore replaceChild cloneNode contains " +
  "getAttribute setAttribute removeAttribute hasAttribute classList className style focus blur click scrollIntoView " +
  "getBoundingClientRect closest matches remove append prepend before after replaceWith innerHTML outerHTML textContent " +
  "innerText value checked disabled dataset parentNode parentElement children childNodes firstChild lastChild " +
  "nextSibling previousSibling createElement createTextNode preventDefault stopPropagation stopImmediatePropagation " +
  "getContext requestAnimationFrame cancelAnimationFrame setTimeout clearTimeout setInterval clearInterval postMessage " +
  "getItem setItem removeItem clear key open close send abort json text blob arrayBuffer formData " +
  "setState forceUpdate render componentDidMount componentDidUpdate componentWillUnmount shouldComponentUpdate " +
  "getDerivedStateFromProps getSnapshotBeforeUpdate props state context refs current " +
  "toBe toEqual toStrictEqual toBeTruthy toBeFalsy toBeNull toBeUndefined toBeDefined toContain toHaveLength " +
  "toHaveBeenCalled toHaveBeenCalledWith toHaveBeenCalledTimes toThrow toMatch toMatchObject toMatchSnapshot " +
  "toMatchInlineSnapshot toHaveProperty resolves rejects not mockReturnValue mockResolvedValue mockImplementation " +
  "mockClear mockReset mockRestore spyOn fn mock calls equal deepEqual strictEqual ok throws should expect").split(" "))
  names.add(n);
const list = [...names].filter(n => /^[A-Za-z$][\w$]*$/.test(n) && !n.startsWith("_")).sort();
let line = "common_members = [", out = [];
for (const n of list) { const item = `"${n}", `; if (line.length + item.length > 110) { out.push(line.trimEnd()); line = "  "; } line += item; }
out.push(line.trimEnd().replace(/,$/, "") + "]");
console.log(out.join("\n"));
