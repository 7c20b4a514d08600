// PPB_URLRequestInfo;1.0, PPB_URLResponseInfo;1.0, PPB_URLLoader;1.0:
// HTTP loads through the host's fetch().
//
//   PP_Resource URLRequestInfo.Create(PP_Instance instance)
//   PP_Bool IsURLRequestInfo(PP_Resource resource)
//   PP_Bool SetProperty(PP_Resource request, PP_URLRequestProperty property, struct PP_Var value)
//   PP_Bool AppendDataToBody(PP_Resource request, const void* data, uint32_t len)
//   PP_Bool AppendFileToBody(PP_Resource request, PP_Resource file_ref, int64_t start_offset,
//       int64_t number_of_bytes, PP_Time expected_last_modified_time)
//
//   PP_Bool URLResponseInfo.IsURLResponseInfo(PP_Resource resource)
//   struct PP_Var GetProperty(PP_Resource response, PP_URLResponseProperty property)
//   PP_Resource GetBodyAsFileRef(PP_Resource response)
//
//   PP_Resource URLLoader.Create(PP_Instance instance)
//   PP_Bool IsURLLoader(PP_Resource resource)
//   int32_t Open(PP_Resource loader, PP_Resource request_info, struct PP_CompletionCallback callback)
//   int32_t FollowRedirect(PP_Resource loader, struct PP_CompletionCallback callback)
//   PP_Bool GetUploadProgress(PP_Resource loader, int64_t* bytes_sent, int64_t* total_bytes_to_be_sent)
//   PP_Bool GetDownloadProgress(PP_Resource loader, int64_t* bytes_received, int64_t* total_bytes_to_be_received)
//   PP_Resource GetResponseInfo(PP_Resource loader)
//   int32_t ReadResponseBody(PP_Resource loader, void* buffer, int32_t bytes_to_read, struct PP_CompletionCallback callback)
//   int32_t FinishStreamingToFile(PP_Resource loader, struct PP_CompletionCallback callback)
//   void Close(PP_Resource loader)
//
// Open completes when the response headers have arrived (any HTTP status:
// the plugin reads it from the response info); ReadResponseBody completes
// as soon as some bytes are there (0 at the end). URLs resolve against the
// embedding document (the embedder's `baseUrl`), and the host's URL
// rewrite map (polyfill option) applies. Cross-origin loads need
// ALLOWCROSSORIGINREQUESTS, as in Chrome (PP_ERROR_NOACCESS otherwise).
// STREAMTOFILE is refused, as in Chrome since it dropped it, so
// FinishStreamingToFile and GetBodyAsFileRef have nothing to give.

import { INSTANCE_ID, PP, VAR } from '../defs.js';
import { makeVar } from '../vars.js';

/** PP_URLRequestProperty → [name, var type]. */
const REQUEST_PROPS = Object.freeze({
  0: ['url', VAR.STRING],
  1: ['method', VAR.STRING],
  2: ['headers', VAR.STRING],
  3: ['streamToFile', VAR.BOOL],
  4: ['followRedirects', VAR.BOOL],
  5: ['recordDownloadProgress', VAR.BOOL],
  6: ['recordUploadProgress', VAR.BOOL],
  7: ['customReferrerUrl', VAR.STRING],
  8: ['allowCrossOriginRequests', VAR.BOOL],
  9: ['allowCredentials', VAR.BOOL],
  10: ['customContentTransferEncoding', VAR.STRING],
  11: ['prefetchBufferUpperThreshold', VAR.INT32],
  12: ['prefetchBufferLowerThreshold', VAR.INT32],
  13: ['customUserAgent', VAR.STRING],
});

/** PP_URLResponseProperty. */
const RESPONSE = Object.freeze({ URL: 0, REDIRECTURL: 1, REDIRECTMETHOD: 2, STATUSCODE: 3, STATUSLINE: 4, HEADERS: 5 });

/** The most bytes a request body may collect. */
export const MAX_BODY = 256 << 20;

/** Methods fetch() refuses, and the ones Chrome's loader allowed. */
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function parseHeaders(text) {
  const out = [];
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    out.push([line.slice(0, i).trim(), line.slice(i + 1).trim()]);
  }
  return out;
}

export default (b) => {
  const { vars, mem, resources } = b;

  const request = (id) => resources.get(id, 'URLRequestInfo');
  const loader = (id) => resources.get(id, 'URLLoader');

  /** Settles a pending read with `result` (a byte count or an error). */
  const settleRead = (l, result) => {
    const read = l.read;
    l.read = null;
    read?.resolve?.(result);
  };

  /**
   * Moves buffered bytes into the pending read: the byte count (0 at the
   * end, an error after a failure), or null while there is nothing yet.
   */
  const takeBuffered = (l) => {
    const read = l.read;
    if (l.buffered.length === 0) return l.done ? (l.error ?? 0) : null;
    let n = 0;
    while (n < read.len && l.buffered.length) {
      const chunk = l.buffered[0];
      const take = Math.min(read.len - n, chunk.length);
      mem.write(read.ptr + n, chunk.subarray(0, take));
      n += take;
      if (take === chunk.length) l.buffered.shift();
      else l.buffered[0] = chunk.subarray(take);
    }
    l.bufferedBytes -= n;
    return n;
  };

  /** Completes a waiting read if bytes (or the end) arrived. */
  const fillRead = (l) => {
    if (!l.read?.resolve) return;
    const n = takeBuffered(l);
    if (n !== null) settleRead(l, n);
  };

  const pump = async (l) => {
    try {
      for (;;) {
        if (l.bufferedBytes > (l.props?.prefetchBufferUpperThreshold ?? 8 << 20) && !l.read) {
          await new Promise((resolve) => (l.resume = resolve));
          l.resume = null;
          continue;
        }
        const { done, value } = await l.reader.read();
        if (l.closed) return;
        if (done) break;
        const bytes = value instanceof Uint8Array ? value : new Uint8Array(value);
        if (bytes.length === 0) continue;
        l.received += bytes.length;
        l.buffered.push(bytes);
        l.bufferedBytes += bytes.length;
        fillRead(l);
      }
      l.done = true;
    } catch {
      l.done = true;
      l.error = PP.ERROR_FAILED;
    }
    fillRead(l);
  };

  const open = async (l, req) => {
    const p = req.props;
    let url;
    try {
      url = b.resolveUrl(p.url ?? '');
      if (url === null) return PP.ERROR_BADARGUMENT;
    } catch {
      return PP.ERROR_BADARGUMENT;
    }
    const method = (p.method ?? 'GET').toUpperCase();
    if (!METHOD.test(method)) return PP.ERROR_BADARGUMENT;
    const crossOrigin = b.isCrossOrigin(url);
    if (crossOrigin && !p.allowCrossOriginRequests) return PP.ERROR_NOACCESS;
    const headers = new Headers();
    try {
      for (const [k, v] of parseHeaders(p.headers ?? '')) headers.append(k, v);
    } catch {
      return PP.ERROR_BADARGUMENT;
    }
    const body = req.body.length ? concat(req.body) : undefined;
    if (body && (method === 'GET' || method === 'HEAD')) return PP.ERROR_BADARGUMENT;
    l.uploadTotal = body ? body.length : 0;
    l.controller = new AbortController();
    let response;
    try {
      response = await b.fetch(url, {
        method,
        headers,
        body,
        redirect: p.followRedirects === false ? 'manual' : 'follow',
        credentials: crossOrigin ? (p.allowCredentials ? 'include' : 'omit') : 'same-origin',
        mode: crossOrigin ? 'cors' : 'same-origin',
        signal: l.controller.signal,
      });
    } catch {
      return l.closed ? PP.ERROR_ABORTED : crossOrigin ? PP.ERROR_NOACCESS : PP.ERROR_FAILED;
    }
    if (l.closed) return PP.ERROR_ABORTED;
    l.uploaded = l.uploadTotal;
    const length = Number(response.headers.get('content-length'));
    l.total = Number.isFinite(length) && response.headers.has('content-length') ? length : -1;
    l.response = resources.add('URLResponseInfo', {
      url: response.url || url,
      status: response.status,
      statusText: response.statusText,
      redirected: response.redirected,
      headers: [...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n'),
    });
    l.reader = response.body ? response.body.getReader() : null;
    if (l.reader) pump(l);
    else l.done = true;
    return PP.OK;
  };

  return {
    // ---- URLRequestInfo
    'PPB_URLRequestInfo;1.0:Create'(cx, instance) {
      if (instance !== INSTANCE_ID) return 0;
      return resources.add('URLRequestInfo', { props: { followRedirects: true }, body: [], bodyBytes: 0 });
    },
    'PPB_URLRequestInfo;1.0:IsURLRequestInfo'(cx, id) {
      return request(id) ? 1 : 0;
    },
    'PPB_URLRequestInfo;1.0:SetProperty'(cx, id, property, value) {
      const r = request(id);
      const prop = REQUEST_PROPS[property];
      if (!r || !prop) return 0;
      const [name, type] = prop;
      const v = vars.read(value);
      // Custom referrer, encoding and user agent need universal access;
      // stream-to-file is gone (Chrome refuses them the same way).
      if (name === 'streamToFile') return 0;
      if (v.type === VAR.UNDEFINED && type === VAR.STRING && name.startsWith('custom')) {
        delete r.props[name];
        return 1;
      }
      if (name.startsWith('custom')) return 0;
      if (v.type !== type) return 0;
      r.props[name] = type === VAR.STRING ? vars.stringOf(v) : type === VAR.BOOL ? v.value !== 0 : v.value;
      return 1;
    },
    'PPB_URLRequestInfo;1.0:AppendDataToBody'(cx, id, data, len) {
      const r = request(id);
      len >>>= 0;
      if (!r || r.bodyBytes + len > MAX_BODY) return 0;
      if (len) r.body.push(mem.read(data, len));
      r.bodyBytes += len;
      return 1;
    },
    'PPB_URLRequestInfo;1.0:AppendFileToBody'() {
      // A file body needs a PPB_FileRef, and no file system is offered
      // yet: no file_ref can be valid.
      return 0;
    },

    // ---- URLResponseInfo
    'PPB_URLResponseInfo;1.0:IsURLResponseInfo'(cx, id) {
      return resources.get(id, 'URLResponseInfo') ? 1 : 0;
    },
    'PPB_URLResponseInfo;1.0:GetProperty'(cx, ret, id, property) {
      const r = resources.get(id, 'URLResponseInfo');
      let v = makeVar(VAR.UNDEFINED);
      if (r) {
        switch (property) {
          case RESPONSE.URL:
            v = vars.string(r.url);
            break;
          case RESPONSE.STATUSCODE:
            v = makeVar(VAR.INT32, r.status);
            break;
          case RESPONSE.STATUSLINE:
            v = vars.string(`HTTP/1.1 ${r.status} ${r.statusText}`.trimEnd());
            break;
          case RESPONSE.HEADERS:
            v = vars.string(r.headers);
            break;
          default:
            break;
        }
      }
      vars.write(ret, v);
    },
    'PPB_URLResponseInfo;1.0:GetBodyAsFileRef'() {
      return 0;
    },

    // ---- URLLoader
    'PPB_URLLoader;1.0:Create'(cx, instance) {
      if (instance !== INSTANCE_ID) return 0;
      const l = {
        opened: false,
        closed: false,
        props: null,
        response: 0,
        reader: null,
        buffered: [],
        bufferedBytes: 0,
        received: 0,
        total: -1,
        uploaded: 0,
        uploadTotal: 0,
        done: false,
        error: null,
        read: null,
        pendingOpen: null,
        destroy() {
          this.closed = true;
          this.controller?.abort();
          this.reader?.cancel().catch(() => {});
          settleRead(this, PP.ERROR_ABORTED);
          this.pendingOpen?.(PP.ERROR_ABORTED);
          if (this.response) resources.release(this.response);
        },
      };
      return resources.add('URLLoader', l);
    },
    'PPB_URLLoader;1.0:IsURLLoader'(cx, id) {
      return loader(id) ? 1 : 0;
    },
    'PPB_URLLoader;1.0:Open'(cx, id, requestId, callback) {
      const l = loader(id);
      const req = request(requestId);
      if (!l) return PP.ERROR_BADRESOURCE;
      if (!req) return PP.ERROR_BADARGUMENT;
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      if (l.opened || l.closed) return PP.ERROR_INPROGRESS;
      l.opened = true;
      l.props = { ...req.props };
      const result = new Promise((resolve) => {
        l.pendingOpen = resolve;
        open(l, { props: { ...req.props }, body: req.body.slice() }).then(resolve, () => resolve(PP.ERROR_FAILED));
      }).then((r) => {
        l.pendingOpen = null;
        return r;
      });
      return c.finish(result);
    },
    'PPB_URLLoader;1.0:FollowRedirect'(cx, id, callback) {
      const l = loader(id);
      if (!l) return PP.ERROR_BADRESOURCE;
      // fetch() follows redirects itself or hides them (opaque), so a
      // redirect is never left for the plugin to follow.
      return PP.ERROR_FAILED;
    },
    'PPB_URLLoader;1.0:GetUploadProgress'(cx, id, sent, total) {
      const l = loader(id);
      if (!l || !l.props?.recordUploadProgress) return 0;
      mem.setI64(sent, l.uploaded);
      mem.setI64(total, l.uploadTotal);
      return 1;
    },
    'PPB_URLLoader;1.0:GetDownloadProgress'(cx, id, received, total) {
      const l = loader(id);
      if (!l || !l.props?.recordDownloadProgress) return 0;
      mem.setI64(received, l.received);
      mem.setI64(total, l.total);
      return 1;
    },
    'PPB_URLLoader;1.0:GetResponseInfo'(cx, id) {
      const l = loader(id);
      if (!l || !l.response || !resources.addRef(l.response)) return 0;
      return l.response;
    },
    'PPB_URLLoader;1.0:ReadResponseBody'(cx, id, buffer, len, callback) {
      const l = loader(id);
      if (!l) return PP.ERROR_BADRESOURCE;
      if (!l.response) return PP.ERROR_FAILED;
      if (len <= 0) return len === 0 ? 0 : PP.ERROR_BADARGUMENT;
      mem.check(buffer, len);
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      if (l.read) return PP.ERROR_INPROGRESS;
      l.read = { ptr: buffer, len, resolve: null };
      const now = takeBuffered(l);
      if (now !== null) {
        // Bytes were there: an optional callback completes right away.
        l.read = null;
        l.resume?.();
        return c.finish(now);
      }
      const p = new Promise((resolve) => (l.read.resolve = resolve));
      l.resume?.();
      return c.finish(p);
    },
    'PPB_URLLoader;1.0:FinishStreamingToFile'(cx, id) {
      return loader(id) ? PP.ERROR_FAILED : PP.ERROR_BADRESOURCE;
    },
    'PPB_URLLoader;1.0:Close'(cx, id) {
      const l = loader(id);
      if (!l || l.closed) return;
      l.destroy();
    },
  };
};

function concat(chunks) {
  const n = chunks.reduce((s, c) => s + c.length, 0);
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
