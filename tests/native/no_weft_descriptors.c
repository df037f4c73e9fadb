// The program sees none of weft's descriptors: the memory weft shares with it is mapped by a
// copy of a descriptor the program closes at once, and weft's own is closed on exec. Looks at
// every open descriptor's target. Correct: no bug.
#include <assert.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  DIR* fds = opendir("/proc/self/fd");
  assert(fds);
  int looked = 0;
  for (struct dirent* e; (e = readdir(fds));) {
    if (e->d_name[0] == '.') continue;
    char path[64], target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    const ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0) continue;  // the directory's own descriptor, closed meanwhile
    target[n] = 0;
    assert(strstr(target, "weft") == 0);
    ++looked;
  }
  closedir(fds);
  assert(looked >= 3);  // stdin, stdout, stderr at least
  return 0;
}
