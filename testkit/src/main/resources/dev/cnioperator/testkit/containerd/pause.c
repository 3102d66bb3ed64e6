/*
 * The pod sandbox ("pause") process of the test containerd's sandbox image: it holds the sandbox's
 * namespaces open, reaps the children it inherits as PID 1, and exits at SIGTERM or SIGINT, which
 * is how containerd stops a sandbox. Built with gcc -static by ContainerdFixture's PauseImage.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int sig) {
  (void)sig;
  _exit(0);
}

static void reap(int sig) {
  (void)sig;
  while (waitpid(-1, 0, WNOHANG) > 0) {
  }
}

int main(void) {
  signal(SIGTERM, stop);
  signal(SIGINT, stop);
  signal(SIGCHLD, reap);
  for (;;) {
    pause();
  }
}
