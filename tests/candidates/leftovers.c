/* A hostile candidate for the runner's collection (tests/test_run_leftovers.py), one attack
 * per mode; the test has copied a valid submission to /out/submission.json before it runs.
 *
 *   grow       a child whose first thread exits (SYS_exit: it shows as a zombie) while
 *              another waits for the runner to open the submission and appends 64 MiB to it
 *   churn      a child left making and removing files and directories under /out
 *   forge S    S written on the collector's status pipe, taken with pidfd_getfd or
 *              reopened through /proc/1/fd (says how each went)
 *   dev        512 MiB and 20,000 files written in /dev (says how much was stored)
 *   files N    N empty files made in /tmp
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *SUBMISSION = "/out/submission.json";

static void *grow(void *unused) {
    char event[4096], chunk[1 << 20];
    int watch = inotify_init();
    inotify_add_watch(watch, SUBMISSION, IN_OPEN);
    memset(chunk, ' ', sizeof chunk);
    if (read(watch, event, sizeof event) > 0) {  /* the runner opened it */
        int fd = open(SUBMISSION, O_WRONLY | O_APPEND);
        for (int n = 0; n < 64; n++)
            write(fd, chunk, sizeof chunk);
    }
    return unused;
}

static void churn(void) {
    char path[64];
    for (long n = 0;; n++) {
        snprintf(path, sizeof path, "/out/churn/%ld", n % 50);
        mkdir("/out/churn", 0700);
        close(open(path, O_CREAT | O_WRONLY, 0600));
        mkdir("/out/churn/d", 0700);
        unlink(path);
        rmdir("/out/churn/d");
        if (n % 7 == 0)
            rmdir("/out/churn");
    }
}

static const char *how(long result) {
    return result >= 0 ? "allowed" : errno == EPERM ? "denied (EPERM)" : strerror(errno);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "grow") || !strcmp(mode, "churn")) {
        if (fork() == 0) {
            if (!strcmp(mode, "churn"))
                churn();
            pthread_t thread;
            pthread_create(&thread, NULL, grow, NULL);
            syscall(SYS_exit, 0);  /* this thread only: the process lives on in the other */
        }
        usleep(200 * 1000);  /* the child is set */
        return 0;
    }
    if (!strcmp(mode, "forge") && argc > 2) {
        long pidfd = syscall(SYS_pidfd_open, 1, 0);
        long taken = syscall(SYS_pidfd_getfd, pidfd, 10, 0);  /* dash keeps fd 3 at 10 meanwhile */
        printf("pidfd_getfd %s\n", how(taken));
        long reopened = open("/proc/1/fd/10", O_WRONLY);
        printf("reopen %s\n", how(reopened));
        for (long fd = taken >= 0 ? taken : reopened; fd >= 0; fd = -1)
            write(fd, argv[2], strlen(argv[2]));
        return 0;
    }
    if (!strcmp(mode, "dev")) {
        static char chunk[1 << 20];
        long stored = 0, files = 0;
        int fd = open("/dev/big", O_CREAT | O_WRONLY, 0600);
        printf("open /dev/big: %s\n", how(fd));
        for (int n = 0; fd >= 0 && n < 512; n++)
            stored += write(fd, chunk, sizeof chunk) > 0 ? (long)sizeof chunk : 0;
        for (int n = 0; n < 20000; n++) {
            char path[32];
            snprintf(path, sizeof path, "/dev/f%d", n);
            int made = open(path, O_CREAT | O_WRONLY, 0600);
            files += made >= 0;
            close(made);
        }
        printf("stored %ld bytes and %ld files in /dev\n", stored, files);
        return 0;
    }
    if (!strcmp(mode, "files") && argc > 2) {
        for (long n = 0; n < atol(argv[2]); n++) {
            char path[32];
            snprintf(path, sizeof path, "/tmp/%ld", n);
            close(open(path, O_CREAT | O_WRONLY, 0600));
        }
        return 0;
    }
    fprintf(stderr, "usage: leftovers grow|churn|forge S|dev|files N\n");
    return 2;
}
