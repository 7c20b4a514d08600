// IRT interface "nacl-irt-tls-0.1". Thread side: the thread pointer is the
// instance's `__tp` global (one instance per thread), which the guest reads
// with `llvm.nacl.read.tp`.
//
//   tls_init(void *thread_ptr)    void *tls_get(void)

/** The TLS functions for one thread ({ exports }). */
export function tls(thread) {
  return {
    tls_init(tp) {
      thread.exports.__tp.value = tp;
      return 0;
    },
    tls_get() {
      return thread.exports.__tp.value;
    },
  };
}
