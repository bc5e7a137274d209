/*
 * toolgate's network bridge, the compiled twin of the perl script in src/network/bridge.ts (same arguments,
 * same behaviour, same exit codes); used when the build could compile it, because it starts in a fraction of
 * perl's time (see the package README, "Network").
 *
 *   toolgate-bridge PORT SOCKET -- COMMAND [ARG...]
 *
 * Inside the sandbox's own network namespace: listens on 127.0.0.1:PORT *before* the command starts (so the
 * command's first connection can never race the listener), forks the relay (re-parented to the sandbox's init
 * by a double fork, so a command that waits for all its children never waits for it), then execs the command,
 * which keeps the pid bubblewrap watches. The relay copies every connection to and from the proxy's unix
 * socket: non-blocking sockets, poll(2), a buffer per direction (reading stops while the other side's buffer
 * holds 256 KiB), half-closes passed on, TCP_NODELAY on the client's side. It dies with the sandbox (pid
 * namespace). Failing to listen stops the run before the command starts: exit 125 with the reason; a command
 * that cannot be run: 127 (not found) or 126, like a shell.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define CAP (256 * 1024)
#define CHUNK (64 * 1024)

struct conn {
  int fd[2];       /* 0: the client (TCP), 1: the proxy (unix) */
  char *out[2];    /* bytes waiting to be written to fd[i] */
  size_t len[2];
  int eof[2];      /* fd[i]'s read side ended */
};

static struct conn *conns;
static size_t nconns, maxconns;
static struct sockaddr_un to;

static void fail(const char *what) {
  fprintf(stderr, "toolgate: network bridge: %s: %s\n", what, strerror(errno));
  exit(125);
}

static void drop(size_t i) {
  struct conn *c = &conns[i];
  for (int s = 0; s < 2; s++) {
    close(c->fd[s]);
    free(c->out[s]);
  }
  conns[i] = conns[--nconns];
}

static void accept_all(int l) {
  for (;;) {
    int c = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c < 0) return; /* EAGAIN: no more waiting; anything else: try again on the next poll */
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (u < 0 || connect(u, (struct sockaddr *)&to, sizeof to) < 0 || fcntl(u, F_SETFL, O_NONBLOCK) < 0) {
      if (u >= 0) close(u);
      close(c);
      continue;
    }
    if (nconns == maxconns) {
      size_t n = maxconns ? maxconns * 2 : 16;
      struct conn *grown = realloc(conns, n * sizeof *conns);
      if (!grown) {
        close(u);
        close(c);
        continue;
      }
      conns = grown;
      maxconns = n;
    }
    conns[nconns++] = (struct conn){{c, u}, {NULL, NULL}, {0, 0}, {0, 0}};
  }
}

/* One connection's events; returns 0 when it was dropped. */
static int serve(size_t i, const struct pollfd *p) {
  struct conn *c = &conns[i];
  for (int s = 0; s < 2; s++) {
    short ev = p[s].revents;
    int peer = 1 - s;
    if ((p[s].events & POLLOUT) && (ev & (POLLOUT | POLLHUP | POLLERR))) {
      ssize_t n = write(c->fd[s], c->out[s], c->len[s]);
      if (n > 0) {
        memmove(c->out[s], c->out[s] + n, c->len[s] - (size_t)n);
        c->len[s] -= (size_t)n;
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        drop(i);
        return 0;
      }
      if (c->len[s] == 0 && c->eof[peer]) shutdown(c->fd[s], SHUT_WR);
    }
    if ((p[s].events & POLLIN) && (ev & (POLLIN | POLLHUP | POLLERR))) {
      if (!c->out[peer] && !(c->out[peer] = malloc(CAP + CHUNK))) {
        drop(i);
        return 0;
      }
      ssize_t n = read(c->fd[s], c->out[peer] + c->len[peer], CHUNK);
      if (n > 0) c->len[peer] += (size_t)n;
      else if (n == 0) {
        c->eof[s] = 1;
        if (c->len[peer] == 0) shutdown(c->fd[peer], SHUT_WR);
      } else if (errno != EAGAIN && errno != EINTR) {
        drop(i);
        return 0;
      }
    }
  }
  if (c->eof[0] && c->eof[1] && !c->len[0] && !c->len[1]) {
    drop(i);
    return 0;
  }
  return 1;
}

static void relay(int l) {
  struct pollfd *p = NULL;
  size_t cap = 0;
  for (;;) {
    size_t need = 1 + 2 * nconns;
    if (need > cap) {
      struct pollfd *grown = realloc(p, need * 2 * sizeof *p);
      if (!grown) _exit(0);
      p = grown;
      cap = need * 2;
    }
    p[0] = (struct pollfd){l, POLLIN, 0};
    for (size_t i = 0; i < nconns; i++)
      for (int s = 0; s < 2; s++) {
        struct conn *c = &conns[i];
        short ev = 0;
        if (!c->eof[s] && c->len[1 - s] < CAP) ev |= POLLIN;
        if (c->len[s]) ev |= POLLOUT;
        /* Nothing asked of it: left out, as select(2) would (a hung-up socket must not wake the loop). */
        p[1 + 2 * i + s] = (struct pollfd){ev ? c->fd[s] : -1, ev, 0};
      }
    size_t polled = nconns;
    if (poll(p, 1 + 2 * polled, -1) < 0) {
      if (errno == EINTR) continue;
      _exit(0);
    }
    /* Backwards: drop() moves the last connection into the dropped one's place. */
    for (size_t i = polled; i-- > 0;) serve(i, &p[1 + 2 * i]);
    if (p[0].revents & POLLIN) accept_all(l);
  }
}

int main(int argc, char **argv) {
  if (argc < 5 || strcmp(argv[3], "--") != 0) {
    fprintf(stderr, "toolgate: network bridge: usage: %s PORT SOCKET -- COMMAND [ARG...]\n", argv[0]);
    return 125;
  }
  int port = atoi(argv[1]);
  if (strlen(argv[2]) >= sizeof to.sun_path) {
    fprintf(stderr, "toolgate: network bridge: socket path too long: %s\n", argv[2]);
    return 125;
  }
  to.sun_family = AF_UNIX;
  strcpy(to.sun_path, argv[2]);
  int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l < 0) fail("socket");
  struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(l, (struct sockaddr *)&at, sizeof at) < 0) {
    fprintf(stderr, "toolgate: network bridge: bind 127.0.0.1:%d: %s\n", port, strerror(errno));
    return 125;
  }
  if (listen(l, 128) < 0) fail("listen");
  pid_t k = fork();
  if (k < 0) fail("fork");
  if (k == 0) {
    if (fork() != 0) _exit(0);
    signal(SIGPIPE, SIG_IGN);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
      if (null > 2) close(null);
    }
    fcntl(l, F_SETFL, O_NONBLOCK);
    relay(l);
    _exit(0);
  }
  waitpid(k, NULL, 0);
  close(l);
  execvp(argv[4], argv + 4);
  int e = errno;
  fprintf(stderr, "toolgate: %s: %s\n", argv[4], strerror(e));
  return e == ENOENT || e == ENOTDIR ? 127 : 126;
}
