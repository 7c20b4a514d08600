// The NaCl IRT as a PNaCl pexe calls it: every interface the runtime
// answers through `query`, its functions in table order, with the C
// prototypes of native_client's irt.h / irt_dev.h / irt_ppapi.h (ILP32:
// pointers, int, long and size_t are 32 bits; nacl_irt_off_t is 64).
//
// This file is data (src/abi/mod.rs reads it): one `interface NAME` line,
// then one declaration per line. A function that appears in several
// interfaces is declared once per interface with the same prototype and is
// one import. The order of first appearance is the import order of the
// runtime ABI (docs/ARCHITECTURE.md, "Imports"): `irt.<name>`, table
// element 1 + k.

// The AT_SYSINFO value: not an interface, the lookup function itself.
interface @query
size_t query(const char* interface_ident, void* table, size_t tablesize)

interface nacl-irt-basic-0.1
void exit(int status)
int gettod(struct nacl_abi_timeval* tv)
int clock(nacl_abi_clock_t* ticks)
int nanosleep(const struct nacl_abi_timespec* req, struct nacl_abi_timespec* rem)
int sched_yield(void)
int sysconf(int name, int* value)

interface nacl-irt-fdio-0.1
int close(int fd)
int dup(int fd, int* newfd)
int dup2(int fd, int newfd)
int read(int fd, void* buf, size_t count, size_t* nread)
int write(int fd, const void* buf, size_t count, size_t* nwrote)
int seek(int fd, nacl_irt_off_t offset, int whence, nacl_irt_off_t* new_offset)
int fstat(int fd, struct nacl_abi_stat* st)
int getdents(int fd, struct dirent* dirent, size_t count, size_t* nread)

interface nacl-irt-dev-fdio-0.1
int close(int fd)
int dup(int fd, int* newfd)
int dup2(int fd, int newfd)
int read(int fd, void* buf, size_t count, size_t* nread)
int write(int fd, const void* buf, size_t count, size_t* nwrote)
int seek(int fd, nacl_irt_off_t offset, int whence, nacl_irt_off_t* new_offset)
int fstat(int fd, struct nacl_abi_stat* st)
int getdents(int fd, struct dirent* dirent, size_t count, size_t* nread)

interface nacl-irt-dev-fdio-0.3
int close(int fd)
int dup(int fd, int* newfd)
int dup2(int fd, int newfd)
int read(int fd, void* buf, size_t count, size_t* nread)
int write(int fd, const void* buf, size_t count, size_t* nwrote)
int seek(int fd, nacl_irt_off_t offset, int whence, nacl_irt_off_t* new_offset)
int fstat(int fd, struct nacl_abi_stat* st)
int getdents(int fd, struct dirent* dirent, size_t count, size_t* nread)
int fchdir(int fd)
int fchmod(int fd, mode_t mode)
int fsync(int fd)
int fdatasync(int fd)
int ftruncate(int fd, nacl_irt_off_t length)
int isatty(int fd, int* result)

interface nacl-irt-dev-filename-0.3
int open(const char* pathname, int oflag, mode_t cmode, int* newfd)
int stat(const char* pathname, struct nacl_abi_stat* st)
int mkdir(const char* pathname, mode_t mode)
int rmdir(const char* pathname)
int chdir(const char* pathname)
int getcwd(char* pathname, size_t len)
int unlink(const char* pathname)
int truncate(const char* pathname, nacl_irt_off_t length)
int lstat(const char* pathname, struct nacl_abi_stat* st)
int link(const char* oldpath, const char* newpath)
int rename(const char* oldpath, const char* newpath)
int symlink(const char* oldpath, const char* newpath)
int chmod(const char* path, mode_t mode)
int access(const char* path, int amode)
int readlink(const char* path, char* buf, size_t count, size_t* nread)
int utimes(const char* filename, const struct nacl_abi_timeval* times)

interface nacl-irt-memory-0.3
int mmap(void** addr, size_t len, int prot, int flags, int fd, nacl_irt_off_t off)
int munmap(void* addr, size_t len)
int mprotect(void* addr, size_t len, int prot)

interface nacl-irt-tls-0.1
int tls_init(void* thread_ptr)
void* tls_get(void)

interface nacl-irt-thread-0.1
int thread_create(void* start_func, void* stack, void* thread_ptr)
void thread_exit(int32_t* stack_flag)
int thread_nice(const int nice)

interface nacl-irt-futex-0.1
int futex_wait_abs(volatile int* addr, int value, const struct nacl_abi_timespec* abstime)
int futex_wake(volatile int* addr, int nwake, int* count)

interface nacl-irt-clock_get-0.1
int clock_getres(nacl_irt_clockid_t clk_id, struct nacl_abi_timespec* res)
int clock_gettime(nacl_irt_clockid_t clk_id, struct nacl_abi_timespec* tp)

interface nacl-irt-random-0.1
int get_random_bytes(void* buf, size_t count, size_t* nread)

// Answered only to Pepper plugins (src/abi/ppapi.h).
interface nacl-irt-ppapihook-0.1
int ppapi_start(const struct PP_StartFunctions* funcs)
void ppapi_register_thread_creator(const struct PP_ThreadFunctions* new_funcs)
