// PPB_WebSocket;1.0 over the host's WebSocket.
//
//   PP_Resource Create(PP_Instance instance)
//   PP_Bool IsWebSocket(PP_Resource resource)
//   int32_t Connect(PP_Resource web_socket, struct PP_Var url, const struct PP_Var protocols[],
//       uint32_t protocol_count, struct PP_CompletionCallback callback)
//   int32_t Close(PP_Resource web_socket, uint16_t code, struct PP_Var reason, struct PP_CompletionCallback callback)
//   int32_t ReceiveMessage(PP_Resource web_socket, struct PP_Var* message, struct PP_CompletionCallback callback)
//   int32_t SendMessage(PP_Resource web_socket, struct PP_Var message)
//   uint64_t GetBufferedAmount(PP_Resource web_socket)
//   uint16_t GetCloseCode(PP_Resource web_socket)
//   struct PP_Var GetCloseReason(PP_Resource web_socket)
//   PP_Bool GetCloseWasClean(PP_Resource web_socket)
//   struct PP_Var GetExtensions(PP_Resource web_socket)
//   struct PP_Var GetProtocol(PP_Resource web_socket)
//   PP_WebSocketReadyState GetReadyState(PP_Resource web_socket)
//   struct PP_Var GetURL(PP_Resource web_socket)
//
// Semantics of ppb_websocket.h: Connect once (INPROGRESS after), a bad URL
// or protocol is BADARGUMENT, completion on open (FAILED when it cannot
// open); ReceiveMessage completes at once with a queued message (string or
// array buffer var, a reference for the plugin), else when one arrives;
// after close it keeps answering buffered messages, then FAILED; SendMessage
// while connecting is FAILED; Close takes 1000, 3000–4999 or 1005 (not
// specified: no code) and a reason of at most 123 UTF-8 bytes. Frames
// larger than MAX_MESSAGE end the connection (1009), and at most
// MAX_QUEUED messages wait unread.

import { INSTANCE_ID, PP, PP_FALSE, PP_TRUE, VAR } from '../defs.js';
import { makeVar } from '../vars.js';

/** PP_WebSocketReadyState. */
export const READY = Object.freeze({ INVALID: -1, CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
/** PP_WEBSOCKETSTATUSCODE_NOT_SPECIFIED, and the codes a plugin may close with. */
const NOT_SPECIFIED = 1005;
const NORMAL = 1000;
const MESSAGE_TOO_BIG = 1009;
/** The largest message taken in (bytes): beyond it the connection closes. */
export const MAX_MESSAGE = 64 << 20;
/** Unread messages kept before the connection is closed for overflow. */
export const MAX_QUEUED = 4096;
const MAX_REASON = 123;

export default (b) => {
  const { vars, resources, mem } = b;
  const ws = (id) => resources.get(id, 'WebSocket');
  const stringArg = (ptr) => vars.stringOf(vars.read(ptr));

  /** Completes a pending ReceiveMessage with the next message, if any. */
  const deliver = (s) => {
    const r = s.receive;
    if (!r) return;
    if (s.queue.length) {
      s.receive = null;
      vars.write(r.ptr, s.queue.shift());
      r.resolve(PP.OK);
    } else if (s.state === READY.CLOSED) {
      s.receive = null;
      r.resolve(PP.ERROR_FAILED);
    }
  };

  const onMessage = (s, data) => {
    const size = typeof data === 'string' ? data.length * 3 : data.byteLength;
    if (size > MAX_MESSAGE || s.queue.length >= MAX_QUEUED) {
      s.socket.close(MESSAGE_TOO_BIG, 'message too big');
      return;
    }
    const v = typeof data === 'string' ? vars.string(data) : vars.arrayBufferFrom(new Uint8Array(data));
    if (!v) {
      s.socket.close(MESSAGE_TOO_BIG, 'no memory for the message');
      return;
    }
    s.queue.push(v);
    deliver(s);
  };

  return {
    'PPB_WebSocket;1.0:Create'(cx, instance) {
      if (instance !== INSTANCE_ID) return 0;
      return resources.add('WebSocket', {
        state: READY.INVALID,
        socket: null,
        url: '',
        queue: [],
        receive: null,
        closeCode: 0,
        closeReason: '',
        wasClean: false,
        closing: null,
        destroy() {
          this.socket?.close();
          this.receive?.resolve(PP.ERROR_ABORTED);
          for (const v of this.queue) vars.release(v);
          this.queue = [];
        },
      });
    },
    'PPB_WebSocket;1.0:IsWebSocket'(cx, id) {
      return ws(id) ? PP_TRUE : PP_FALSE;
    },
    'PPB_WebSocket;1.0:Connect'(cx, id, urlPtr, protocolsPtr, count, callback) {
      const s = ws(id);
      if (!s) return PP.ERROR_BADRESOURCE;
      if (s.state !== READY.INVALID) return PP.ERROR_INPROGRESS;
      const url = stringArg(urlPtr);
      if (url === null || count > 64) return PP.ERROR_BADARGUMENT;
      const protocols = [];
      for (let i = 0; i < count; i++) {
        const p = stringArg(protocolsPtr + 16 * i);
        if (p === null) return PP.ERROR_BADARGUMENT;
        protocols.push(p);
      }
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const WS = b.embedder.WebSocket ?? globalThis.WebSocket;
      let href;
      try {
        href = b.resolveUrl(url);
        if (!href || !/^wss?:/.test(href)) return PP.ERROR_BADARGUMENT;
        s.socket = new WS(href, protocols);
      } catch (e) {
        return e?.name === 'SecurityError' ? PP.ERROR_NOACCESS : PP.ERROR_BADARGUMENT;
      }
      s.url = href;
      s.state = READY.CONNECTING;
      s.socket.binaryType = 'arraybuffer';
      const opened = new Promise((resolve) => {
        s.socket.onopen = () => {
          s.state = READY.OPEN;
          resolve(PP.OK);
        };
        s.socket.onerror = () => {
          if (s.state === READY.CONNECTING) resolve(PP.ERROR_FAILED);
        };
        s.socket.onclose = (e) => {
          if (s.state === READY.CONNECTING) resolve(PP.ERROR_FAILED);
          s.state = READY.CLOSED;
          s.closeCode = e.code;
          s.closeReason = e.reason;
          s.wasClean = e.wasClean;
          s.closing?.(PP.OK);
          s.closing = null;
          deliver(s);
        };
      });
      s.socket.onmessage = (e) => onMessage(s, e.data);
      return c.finish(opened);
    },
    'PPB_WebSocket;1.0:Close'(cx, id, code, reasonPtr, callback) {
      const s = ws(id);
      if (!s) return PP.ERROR_BADRESOURCE;
      code &= 0xffff;
      if (code !== NOT_SPECIFIED && code !== NORMAL && !(code >= 3000 && code <= 4999)) return PP.ERROR_NOACCESS;
      const rv = vars.read(reasonPtr);
      let reason = '';
      if (rv.type !== VAR.UNDEFINED) {
        reason = vars.stringOf(rv);
        if (reason === null || new TextEncoder().encode(reason).length > MAX_REASON) return PP.ERROR_BADARGUMENT;
      }
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      if (s.closing) return PP.ERROR_INPROGRESS;
      if (s.state === READY.CLOSED || s.state === READY.INVALID) return c.finish(PP.OK);
      const closed = new Promise((resolve) => (s.closing = resolve));
      s.state = READY.CLOSING;
      // A pending receive ends with the connection.
      if (s.receive && !s.queue.length) {
        s.receive.resolve(PP.ERROR_ABORTED);
        s.receive = null;
      }
      if (code === NOT_SPECIFIED) s.socket.close();
      else s.socket.close(code, reason);
      return c.finish(closed);
    },
    'PPB_WebSocket;1.0:ReceiveMessage'(cx, id, messagePtr, callback) {
      const s = ws(id);
      if (!s) return PP.ERROR_BADRESOURCE;
      mem.check(messagePtr, 16);
      if (s.state === READY.INVALID || s.state === READY.CONNECTING) return PP.ERROR_FAILED;
      if (s.receive) return PP.ERROR_INPROGRESS;
      if (s.queue.length) {
        vars.write(messagePtr, s.queue.shift());
        return PP.OK;
      }
      if (s.state === READY.CLOSED) return PP.ERROR_FAILED;
      const c = b.completion(cx.tid, callback);
      if (c.error) return c.error;
      const got = new Promise((resolve) => (s.receive = { ptr: messagePtr, resolve }));
      return c.finish(got);
    },
    'PPB_WebSocket;1.0:SendMessage'(cx, id, messagePtr) {
      const s = ws(id);
      if (!s) return PP.ERROR_BADRESOURCE;
      if (s.state !== READY.OPEN) return PP.ERROR_FAILED;
      const v = vars.read(messagePtr);
      if (v.type === VAR.STRING) s.socket.send(vars.stringOf(v));
      else if (v.type === VAR.ARRAY_BUFFER) {
        const e = vars.entry(v, VAR.ARRAY_BUFFER);
        if (!e) return PP.ERROR_BADARGUMENT;
        s.socket.send(mem.read(e.ptr, e.length));
      } else return PP.ERROR_BADARGUMENT;
      return PP.OK;
    },
    'PPB_WebSocket;1.0:GetBufferedAmount'(cx, id) {
      return BigInt(ws(id)?.socket?.bufferedAmount ?? 0);
    },
    'PPB_WebSocket;1.0:GetCloseCode'(cx, id) {
      return ws(id)?.closeCode ?? 0;
    },
    'PPB_WebSocket;1.0:GetCloseReason'(cx, ret, id) {
      const s = ws(id);
      vars.write(ret, s ? vars.string(s.closeReason) : makeVar(VAR.UNDEFINED));
    },
    'PPB_WebSocket;1.0:GetCloseWasClean'(cx, id) {
      const s = ws(id);
      return s && s.state === READY.CLOSED && s.wasClean ? PP_TRUE : PP_FALSE;
    },
    'PPB_WebSocket;1.0:GetExtensions'(cx, ret, id) {
      const s = ws(id);
      vars.write(ret, s ? vars.string(s.state >= READY.OPEN ? (s.socket.extensions ?? '') : '') : makeVar(VAR.UNDEFINED));
    },
    'PPB_WebSocket;1.0:GetProtocol'(cx, ret, id) {
      const s = ws(id);
      vars.write(ret, s ? vars.string(s.state >= READY.OPEN ? (s.socket.protocol ?? '') : '') : makeVar(VAR.UNDEFINED));
    },
    'PPB_WebSocket;1.0:GetReadyState'(cx, id) {
      return ws(id)?.state ?? READY.INVALID;
    },
    'PPB_WebSocket;1.0:GetURL'(cx, ret, id) {
      const s = ws(id);
      vars.write(ret, s ? vars.string(s.url) : makeVar(VAR.UNDEFINED));
    },
  };
};
