// Every execution must see the arguments, environment and process settings a fresh process
// has, also in a worker that runs one execution after another. Each execution of this program
// (two threads racing for a lock: two executions) checks them and then changes every one: it
// edits argv[1] in place, replaces argv[2], sets and unsets variables, changes the working
// directory, the umask, a signal disposition, the signal mask and a resource limit.
// Run as `prog -l SECOND`, with ARGUMENTS_TEST_VAR=original and ARGUMENTS_TEST_SECOND=SECOND in
// the environment (SECOND may look like one of weft's options: it is the program's).
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int turns;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  ++turns;
  pthread_mutex_unlock(&lock);
  return 0;
}

static void on_usr1(int sig) {
  (void)sig;
}

int main(int argc, char** argv) {
  assert(argc == 3);
  assert(strcmp(argv[1], "-l") == 0);
  const char* second = getenv("ARGUMENTS_TEST_SECOND");
  assert(second && strcmp(argv[2], second) == 0);
  const char* var = getenv("ARGUMENTS_TEST_VAR");
  assert(var && strcmp(var, "original") == 0);
  assert(getenv("ARGUMENTS_TEST_ADDED") == 0);
  char cwd[4096];
  assert(getcwd(cwd, sizeof cwd) && strcmp(cwd, "/") != 0);
  const mode_t mask = umask(077);
  assert(mask != 077);
  struct sigaction action;
  sigaction(SIGUSR1, 0, &action);
  assert(action.sa_handler == SIG_DFL);
  sigset_t blocked;
  sigprocmask(SIG_SETMASK, 0, &blocked);
  assert(!sigismember(&blocked, SIGUSR2));
  struct rlimit files;
  getrlimit(RLIMIT_NOFILE, &files);
  assert(files.rlim_cur > 10);

  argv[1][1] = 'X';
  argv[2] = "replaced";
  setenv("ARGUMENTS_TEST_VAR", "changed", 1);
  setenv("ARGUMENTS_TEST_ADDED", "1", 1);
  assert(chdir("/") == 0);
  signal(SIGUSR1, on_usr1);
  sigaddset(&blocked, SIGUSR2);
  sigprocmask(SIG_BLOCK, &blocked, 0);
  files.rlim_cur = 10;
  setrlimit(RLIMIT_NOFILE, &files);

  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], 0);
  return turns == 2 ? 0 : 1;
}
