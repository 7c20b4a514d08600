// Constants and struct layouts of Pepper (PPAPI) as a pexe sees them:
// ILP32, little-endian. Values are from Chromium's ppapi/c headers
// (pp_errors.h, pp_var.h, pp_completion_callback.h, pp_rect.h, …) as
// recorded in ../shared/reference/pepper-facts.md §4; none is copied code.

/** PP_Error: results of PPB calls and completion callbacks. */
export const PP = Object.freeze({
  OK: 0,
  OK_COMPLETIONPENDING: -1,
  ERROR_FAILED: -2,
  ERROR_ABORTED: -3,
  ERROR_BADARGUMENT: -4,
  ERROR_BADRESOURCE: -5,
  ERROR_NOINTERFACE: -6,
  ERROR_NOACCESS: -7,
  ERROR_NOMEMORY: -8,
  ERROR_NOSPACE: -9,
  ERROR_NOQUOTA: -10,
  ERROR_INPROGRESS: -11,
  ERROR_NOTSUPPORTED: -12,
  ERROR_BLOCKS_MAIN_THREAD: -13,
  ERROR_MALFORMED_INPUT: -14,
  ERROR_RESOURCE_FAILED: -15,
  ERROR_FILENOTFOUND: -20,
  ERROR_FILEEXISTS: -21,
  ERROR_FILETOOBIG: -22,
  ERROR_FILECHANGED: -23,
  ERROR_NOTAFILE: -24,
  ERROR_TIMEDOUT: -30,
  ERROR_USERCANCEL: -40,
  ERROR_NO_USER_GESTURE: -41,
  ERROR_CONTEXT_LOST: -50,
  ERROR_NO_MESSAGE_LOOP: -51,
  ERROR_WRONG_THREAD: -52,
  ERROR_WOULD_BLOCK_THREAD: -53,
  ERROR_CONNECTION_CLOSED: -100,
  ERROR_CONNECTION_RESET: -101,
  ERROR_CONNECTION_REFUSED: -102,
  ERROR_CONNECTION_ABORTED: -103,
  ERROR_CONNECTION_FAILED: -104,
  ERROR_CONNECTION_TIMEDOUT: -105,
  ERROR_ADDRESS_INVALID: -106,
  ERROR_ADDRESS_UNREACHABLE: -107,
  ERROR_ADDRESS_IN_USE: -108,
  ERROR_MESSAGE_TOO_BIG: -109,
  ERROR_NAME_NOT_RESOLVED: -110,
});

export const PP_TRUE = 1;
export const PP_FALSE = 0;

/** PP_VarType. */
export const VAR = Object.freeze({
  UNDEFINED: 0,
  NULL: 1,
  BOOL: 2,
  INT32: 3,
  DOUBLE: 4,
  STRING: 5,
  OBJECT: 6,
  ARRAY: 7,
  DICTIONARY: 8,
  ARRAY_BUFFER: 9,
  RESOURCE: 10,
});

/** Var types that carry a reference-counted id in `value.as_id`. */
export const REFCOUNTED_VARS = new Set([
  VAR.STRING,
  VAR.OBJECT,
  VAR.ARRAY,
  VAR.DICTIONARY,
  VAR.ARRAY_BUFFER,
  VAR.RESOURCE,
]);

/** struct PP_Var: +0 type, +4 padding, +8 value (8 bytes). */
export const PP_VAR = Object.freeze({ type: 0, value: 8, SIZE: 16 });

/** struct PP_CompletionCallback: +0 func, +4 user_data, +8 flags. */
export const PP_CALLBACK = Object.freeze({ func: 0, user_data: 4, flags: 8, SIZE: 12 });
/** PP_CompletionCallback_Flag. */
export const CALLBACK_FLAG = Object.freeze({ NONE: 0, OPTIONAL: 1 });

/** struct PP_Rect: +0 x, +4 y, +8 width, +12 height. */
export const PP_RECT = Object.freeze({ x: 0, y: 4, width: 8, height: 12, SIZE: 16 });
/** struct PP_Point / PP_Size: two i32. */
export const PP_POINT = Object.freeze({ x: 0, y: 4, SIZE: 8 });

/** struct PP_ArrayOutput: +0 GetDataBuffer, +4 user_data. */
export const PP_ARRAY_OUTPUT = Object.freeze({ GetDataBuffer: 0, user_data: 4, SIZE: 8 });

/** struct PP_StartFunctions: +0 Initialize, +4 Shutdown, +8 GetInterface. */
export const PP_START = Object.freeze({ initialize: 0, shutdown: 4, getInterface: 8, SIZE: 12 });

/** struct PPP_MessageHandler_0_2: three function pointers. */
export const PPP_MESSAGE_HANDLER = Object.freeze({ HandleMessage: 0, HandleBlockingMessage: 4, Destroy: 8 });

/** PP_LogLevel. */
export const LOG = Object.freeze({ TIP: 0, LOG: 1, WARNING: 2, ERROR: 3 });
export const LOG_NAMES = Object.freeze(['tip', 'log', 'warning', 'error']);

/** The module id handed to PPP_InitializeModule, and the one instance's id. */
export const MODULE_ID = 1;
export const INSTANCE_ID = 1;

/** The guest's main thread (the one that called ppapi_start). */
export const MAIN_TID = 0;

/** What a deferred answer to a guest thread carries (rpc.js payload words). */
export const ITEM = Object.freeze({
  /** [ITEM.CALLBACK, func, user_data, result] */
  CALLBACK: 1,
  /** [ITEM.QUIT] */
  QUIT: 2,
  /** [ITEM.HANDLER_MESSAGE, handler, user_data, varType, varLo, varHi] */
  HANDLER_MESSAGE: 3,
  /** [ITEM.HANDLER_BLOCKING, handler, user_data, varType, varLo, varHi, replyId] */
  HANDLER_BLOCKING: 4,
  /** [ITEM.HANDLER_DESTROY, handler, user_data] */
  HANDLER_DESTROY: 5,
});
