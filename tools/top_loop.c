/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuset-inspect --top's loop (tools/top.h): a sample and a draw each
 * refresh, the terminal taken (keys one by one, the alternate screen) and
 * given back at the end, at Ctrl-Z and at exit, the view fitted to the
 * terminal's size and drawn again when it changes. The samples are
 * top.c's, their text and JSON top_print.c's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "tools/cli.h"
#include "tools/top.h"

static volatile sig_atomic_t stop_sig, tstp_sig, winch_sig;
static struct termios saved_tio;
static bool tio_saved, screen_used;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void on_tstp(int sig)
{
	(void)sig;
	tstp_sig = 1;
}

static void on_winch(int sig)
{
	(void)sig;
	winch_sig = 1;
}

/* Keys one by one, no echo (signals still come from the terminal); the
 * alternate screen, no cursor. */
static void enter_terminal(bool screen, bool keys)
{
	if (keys && tcgetattr(STDIN_FILENO, &saved_tio) == 0) {
		struct termios raw = saved_tio;
		raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tio_saved = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
	}
	if (screen) {
		fputs("\033[?1049h\033[?25l", stdout);
		fflush(stdout);
		screen_used = true;
	}
}

static void restore_terminal(void)
{
	if (screen_used) {
		/* cursor shown, the main screen back */
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
		screen_used = false;
	}
	if (tio_saved) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
		tio_saved = false;
	}
}

/* Ctrl-Z: the terminal given back as it was, stopped; at SIGCONT taken
 * again. */
static void suspend(bool screen, bool keys)
{
	tstp_sig = 0;
	restore_terminal();
	signal(SIGTSTP, SIG_DFL);
	raise(SIGTSTP);
	/* continued */
	signal(SIGTSTP, on_tstp);
	enter_terminal(screen, keys);
}

/* What ended a wait. */
enum top_wait { WAIT_TIME, WAIT_STOP, WAIT_RESIZED };

/* Waits until end (CLOCK_MONOTONIC seconds): WAIT_STOP when told to stop
 * (q, a signal), WAIT_RESIZED at once when the terminal's size changed. */
static enum top_wait wait_keys(double end, bool *keys, bool screen)
{
	for (;;) {
		if (stop_sig)
			return WAIT_STOP;
		if (tstp_sig) {
			suspend(screen, *keys);
			winch_sig = 1; /* continued: drawn again at once */
		}
		if (winch_sig) {
			winch_sig = 0;
			return WAIT_RESIZED;
		}
		double left = end - top_now();
		if (left <= 0)
			return WAIT_TIME;
		struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
		int ms = (int)(left * 1000.0) + 1;
		int r = poll(*keys ? &pfd : NULL, *keys ? 1 : 0, ms);
		if (r > 0 && *keys) {
			char ch;
			ssize_t n = read(STDIN_FILENO, &ch, 1);
			if (n == 1 && (ch == 'q' || ch == 'Q' || ch == 3))
				return WAIT_STOP;
			if (n == 0)
				*keys = false; /* end of input: keep refreshing */
		}
	}
}

/* COLUMNS, when it is a number of columns: else 0. */
static int env_columns(void)
{
	const char *e = getenv("COLUMNS");
	char *end;
	if (!e || !*e)
		return 0;
	long v = strtol(e, &end, 10);
	return *end || v <= 0 || v > 100000 ? 0 : (int)v;
}

/* The lines and columns to fit, as top(1) takes them: a terminal's size
 * (TIOCGWINSZ, asked again at every draw), else COLUMNS and LINES, else
 * 80 columns on a terminal; not on a terminal COLUMNS or whole lines, and
 * every line. */
static void view_size(bool screen, int *rows, int *cols)
{
	struct winsize ws;
	*rows = 0;
	*cols = env_columns();
	if (!screen)
		return;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
		return;
	}
	const char *l = getenv("LINES");
	*rows = l ? atoi(l) : 0;
	if (*rows < 0)
		*rows = 0;
	if (!*cols)
		*cols = 80;
}

static void draw(const struct top_state *s, const struct top_opts *o, bool screen, long i)
{
	int rows, cols;
	view_size(screen, &rows, &cols);
	if (o->json) {
		top_print_json(s, stdout, o->delay);
	} else if (screen) {
		fputs("\033[H\033[2J", stdout);
		/* the last line left empty: the cursor's, so nothing scrolls */
		top_print_text(s, stdout, o->delay, rows ? rows - 1 : 0, cols);
	} else {
		if (i)
			fputc('\n', stdout);
		top_print_text(s, stdout, o->delay, 0, cols);
	}
}

static void catch_signals(bool screen)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the wait ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (screen) {
		sa.sa_handler = on_tstp;
		sigaction(SIGTSTP, &sa, NULL);
		sa.sa_handler = on_winch;
		sigaction(SIGWINCH, &sa, NULL);
	}
}

int top_run(struct cps_ctx *c, const struct top_opts *o)
{
	struct top_state s;
	/* the members are read whatever is shown: their threads and CPU time
	 * are their sets' figures */
	int r = top_init(&s, c, true);
	if (r < 0) {
		cli_err("--top: cannot start: %s", strerror(-r));
		top_free(&s);
		return CLI_TABLE;
	}
	s.list_members = o->members;
	bool screen = !o->json && isatty(STDOUT_FILENO);
	bool keys = screen && isatty(STDIN_FILENO);
	catch_signals(screen);
	enter_terminal(screen, keys);
	keys = keys && tio_saved;
	atexit(restore_terminal);
	if ((r = top_sample(&s)) < 0)
		goto fail;
	long shown = 0;
	if (screen) {
		/* the screen at once, as top(1): the sets, their figures to come */
		draw(&s, o, screen, shown);
		fflush(stdout);
	}
	for (long i = 0; o->count == 0 || i < o->count; i++) {
		/* a resize redraws the last refresh at once, within the wait */
		double end = top_now() + o->delay;
		enum top_wait w;
		while ((w = wait_keys(end, &keys, screen)) == WAIT_RESIZED) {
			draw(&s, o, screen, shown);
			fflush(stdout);
		}
		if (w == WAIT_STOP)
			break;
		if ((r = top_sample(&s)) < 0)
			goto fail;
		draw(&s, o, screen, shown++);
		if (fflush(stdout) != 0)
			break; /* nobody reads any more */
	}
	restore_terminal();
	top_free(&s);
	return CLI_OK;
fail:
	restore_terminal();
	top_free(&s);
	cli_err("--top: %s", strerror(-r));
	return CLI_TABLE;
}
