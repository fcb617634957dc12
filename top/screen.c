/* screen.c - sampler top's terminal view (ncurses).  Each refresh draws
 * into the curses window after erase() and shows it with one refresh(),
 * which sends only what changed: no flicker. */
#include <curses.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "view.h"
#include "../common/textescape.h"

struct screen {
	struct top_run *run;
	struct top_view v;
	uint32_t selected;
	bool paused, expanded;
};

/* One line at (y, x), cut at n columns, names escaped by the one rule of
 * every text output (common/textescape.h), as --stdio and the exporter. */
static void put_line(int y, int x, const char *line, int n)
{
	char shown[4096];

	mvaddnstr(y, x, textescape_str(shown, sizeof(shown), line, NULL), n);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A new interval: the view of the one that ended. */
static int take_view(struct screen *s)
{
	struct top_table *t = s->run->table;
	int rc;

	pthread_mutex_lock(&t->lock);
	rc = top_table_view(t, &s->run->view, &s->v);
	top_table_next_interval(t, false);
	pthread_mutex_unlock(&t->lock);
	s->run->refreshes++;
	if (s->selected >= s->v.nrows)
		s->selected = s->v.nrows ? s->v.nrows - 1 : 0;
	return rc;
}

static void draw_paths(struct screen *s, int *y, int rows, int cols)
{
	struct top_table *t = s->run->table;
	struct top_path paths[TOP_PATHS];
	char line[2048];
	uint32_t n;

	if (cols <= 4)
		return;
	pthread_mutex_lock(&t->lock);
	n = top_table_paths(t, &s->run->view, &s->v.rows[s->selected], paths, TOP_PATHS);
	pthread_mutex_unlock(&t->lock);
	if (!n && *y < rows)
		put_line((*y)++, 4, t->stacks ? "(no call path yet)" :
			  "(no call paths: record with -g)", cols - 4);
	for (uint32_t i = 0; i < n && *y < rows; i++) {
		size_t len = (size_t)snprintf(line, sizeof(line), "%6.3f s  %s",
					      (double)paths[i].cpu_ns / 1e9,
					      s->v.rows[s->selected].label);

		for (uint32_t f = 0; f < paths[i].nframes && len < sizeof(line); f++)
			len += (size_t)snprintf(line + len, sizeof(line) - len, " <- %s",
						paths[i].frames[f]);
		/* cut at the edge: a line that wrapped would overwrite the next */
		put_line((*y)++, 4, line, cols - 4);
	}
}

static void draw(struct screen *s)
{
	struct top_table *t = s->run->table;
	struct top_layout l;
	int rows, cols, y = 0;
	char line[2048], hidden[48] = "";

	getmaxyx(stdscr, rows, cols);
	top_layout_make(t, cols, &l);
	if (l.hidden)
		snprintf(hidden, sizeof(hidden), ", %u columns hidden", l.hidden);
	erase();
	top_format_title(t, &s->v, &s->run->view, line, sizeof(line));
	put_line(y++, 0, line, cols);
	snprintf(line, sizeof(line), "[sort %s, by %s%s%s] c/e/s sort, space pause, z zero, t/p this thread/process only, b by, enter call path, q quit",
		 top_sort_name(s->run->view.sort), top_by_name(s->run->view.by),
		 s->paused ? ", paused" : "", hidden);
	put_line(y++, 0, line, cols);
	top_format_head(t, &l, &s->run->view, line, sizeof(line));
	attron(A_REVERSE);
	put_line(y++, 0, line, cols);
	attroff(A_REVERSE);
	for (uint32_t i = 0; i < s->v.nrows && y < rows; i++) {
		top_format_row(t, &l, &s->v, &s->v.rows[i], line, sizeof(line));
		if (i == s->selected)
			attron(A_BOLD);
		put_line(y++, 0, line, cols);
		if (i == s->selected) {
			attroff(A_BOLD);
			if (s->expanded)
				draw_paths(s, &y, rows, cols);
		}
	}
	refresh();
}

static void toggle(uint32_t *filter, uint32_t id)
{
	*filter = *filter ? 0 : id;
}

/* A key: true when the view must be taken again. */
static bool key(struct screen *s, int c)
{
	struct top_view_options *o = &s->run->view;
	const struct top_row *sel = s->v.nrows ? &s->v.rows[s->selected] : NULL;

	switch (c) {
	case 'q':
	case 'Q':
		s->run->quit = 1;
		break;
	case 'c':
	case 'e':
	case 's':
		o->sort = c == 'c' ? TOP_SORT_CPU : c == 'e' ? TOP_SORT_ENERGY : TOP_SORT_SAMPLES;
		top_view_sort(&s->v, o->sort);
		break;
	case ' ':
		s->paused = !s->paused;
		break;
	case 'z':
		pthread_mutex_lock(&s->run->table->lock);
		top_table_next_interval(s->run->table, true);
		pthread_mutex_unlock(&s->run->table->lock);
		return true;
	case 't':
		if (sel || o->only_tid)
			toggle(&o->only_tid, sel ? sel->tid : 0);
		return true;
	case 'p':
		if (sel || o->only_pid)
			toggle(&o->only_pid, sel ? sel->pid : 0);
		return true;
	case 'b':
		o->by = (enum top_by)((o->by + 1) % 4);
		s->expanded = false;
		return true;
	case KEY_UP:
	case 'k':
		if (s->selected)
			s->selected--;
		break;
	case KEY_DOWN:
	case 'j':
		if (s->selected + 1 < s->v.nrows)
			s->selected++;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		s->expanded = !s->expanded;
		break;
	case KEY_RESIZE:
		/* curses knows the new size; draw the whole screen anew, as
		 * the terminal may have moved or cut what it showed */
		clearok(curscr, TRUE);
		break;
	default:
		break;
	}
	return false;
}

int top_screen_loop(struct top_run *run)
{
	struct screen s = { .run = run };
	double due;

	if (!newterm(NULL, stdout, stdin))
		return -1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	due = now_s() + run->refresh_s;
	take_view(&s);
	draw(&s);
	while (!run->quit && !run->ended) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		int c;
		bool again = false, any = false;

		if (poll(&pfd, 1, 20) < 0 || (pfd.revents & (POLLHUP | POLLERR)))
			top_nap(run, 0);
		if (pfd.revents & (POLLHUP | POLLERR)) {
			run->hangup = run->quit = 1;	/* the terminal is gone */
			break;
		}
		top_nap(run, 0);
		while ((c = getch()) != ERR) {
			again |= key(&s, c);
			any = true;
		}
		if (run->quit)
			break;
		if (!s.paused && now_s() >= due) {
			due += run->refresh_s;
			if (due < now_s())
				due = now_s() + run->refresh_s;
			again = true;
		}
		if (again && !s.paused)
			take_view(&s);
		if (again || any)
			draw(&s);
	}
	if (!run->hangup)
		endwin();
	top_view_free(&s.v);
	return 0;
}
