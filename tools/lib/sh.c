/*
 * POSIX shell words.  Quoting makes a word that sh reads back unchanged;
 * splitting reads words the way sh would, but expands nothing: "$(...)",
 * "$HOME", backquotes, globs and "~" stay literal, so a recorded workload
 * can never run more than its own argv.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int
safe(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c && strchr("_@%+=:,./-", c));
}

void
lp_sh_quote(struct lp_sb *b, const char *w)
{
	const char *p;

	for (p = w; *p && safe((unsigned char)*p); p++)
		;
	if (*w && !*p) {
		lp_sb_adds(b, w);
		return;
	}
	lp_sb_addc(b, '\'');
	for (p = w; *p; p++) {
		if (*p == '\'')
			lp_sb_adds(b, "'\\''");
		else
			lp_sb_addc(b, *p);
	}
	lp_sb_addc(b, '\'');
}

void
lp_argv_free(char **argv, size_t argc)
{
	size_t i;

	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

/* The double-quoted text at s into w (inside, a backslash quotes only $ `
 * " \\ and a newline): past the closing quote, NULL if none. */
static const char *
dquote(struct lp_sb *w, const char *s)
{
	for (s++; *s != '"'; s++) {
		if (!*s)
			return NULL;
		if (*s == '\\' && s[1] && strchr("$`\"\\\n", s[1])) {
			if (s[1] != '\n')
				lp_sb_addc(w, s[1]);
			s++;
		} else
			lp_sb_addc(w, *s);
	}
	lp_sb_addn(w, "", 0);
	return s + 1;
}

int
lp_sh_split(const char *s, char ***argvp, size_t *argcp, const char **err)
{
	struct lp_sb w = { 0 };
	char **argv = NULL;
	size_t argc = 0;
	int inword = 0;

	for (;;) {
		char c = *s;

		if (!c || c == ' ' || c == '\t' || c == '\n') {
			if (inword) {
				argv = lp_xreallocarray(argv, argc + 1, sizeof *argv);
				argv[argc++] = lp_sb_steal(&w);
				inword = 0;
			}
			if (!c)
				break;
			s++;
			continue;
		}
		inword = 1;
		if (c == '\'') {
			const char *e = strchr(s + 1, '\'');

			if (!e) {
				*err = "unterminated single quote";
				goto fail;
			}
			lp_sb_addn(&w, s + 1, (size_t)(e - s - 1));
			s = e + 1;
		} else if (c == '"') {
			if (!(s = dquote(&w, s))) {
				*err = "unterminated double quote";
				goto fail;
			}
		} else if (c == '\\') {
			if (!s[1]) {
				*err = "backslash at the end";
				goto fail;
			}
			if (s[1] != '\n')
				lp_sb_addc(&w, s[1]);
			else if (!w.len)
				inword = 0;
			s += 2;
		} else {
			lp_sb_addc(&w, c);
			s++;
		}
	}
	*argvp = argv;
	*argcp = argc;
	return 0;
fail:
	lp_sb_free(&w);
	lp_argv_free(argv, argc);
	return -1;
}

void
lp_av_push(struct lp_av *av, const char *word)
{
	av->w = lp_xreallocarray(av->w, av->n + 1, sizeof *av->w);
	av->w[av->n++] = lp_xstrdup(word);
}

void
lp_av_pushf(struct lp_av *av, const char *fmt, ...)
{
	struct lp_sb b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	lp_sb_vprintf(&b, fmt, ap);
	va_end(ap);
	av->w = lp_xreallocarray(av->w, av->n + 1, sizeof *av->w);
	av->w[av->n++] = lp_sb_steal(&b);
}

void
lp_av_print(FILE *fp, const struct lp_av *av, int nul)
{
	struct lp_sb b = { 0 };
	size_t i;

	for (i = 0; i < av->n; i++) {
		if (nul) {
			fputs(av->w[i], fp);
			putc('\0', fp);
			continue;
		}
		if (i)
			lp_sb_addc(&b, ' ');
		lp_sh_quote(&b, av->w[i]);
	}
	if (!nul) {
		fputs(lp_sb_str(&b), fp);
		putc('\n', fp);
	}
	lp_sb_free(&b);
}

void
lp_av_free(struct lp_av *av)
{
	lp_argv_free(av->w, av->n);
	av->w = NULL;
	av->n = 0;
}
