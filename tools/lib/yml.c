/*
 * YAML through libyaml: documents load into a small tree that keeps key
 * order and whether each scalar was quoted, so that a merged config is
 * written back the way its presets spelled it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util.h"
#include "table.h"

enum { MAX_DEPTH = 64 };

static struct lp_ynode *
node_new(enum lp_ytype type)
{
	struct lp_ynode *n = lp_xcalloc(1, sizeof *n);

	n->type = type;
	return n;
}

struct lp_ynode *
lp_yaml_map(void)
{
	return node_new(LP_Y_MAP);
}

struct lp_ynode *
lp_yaml_seq(void)
{
	return node_new(LP_Y_SEQ);
}

struct lp_ynode *
lp_yaml_scalar(const char *s, int quoted)
{
	struct lp_ynode *n = node_new(LP_Y_SCALAR);

	n->s = lp_xstrdup(s);
	n->quoted = quoted;
	return n;
}

void
lp_yaml_free(struct lp_ynode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++) {
		if (n->keys)
			free(n->keys[i]);
		lp_yaml_free(n->v[i]);
	}
	free(n->keys);
	free(n->v);
	free(n->s);
	free(n);
}

static void
append(struct lp_ynode *p, char *key, struct lp_ynode *v)
{
	/* room for a power of two: full when n is 0 or one (a list of a
	 * million items grew by one at a time: quadratic under ASan, whose
	 * realloc always copies) */
	if (!(p->n & (p->n - 1))) {
		size_t cap = p->n ? 2 * p->n : 1;

		p->v = lp_xreallocarray(p->v, cap, sizeof *p->v);
		if (p->type == LP_Y_MAP)
			p->keys = lp_xreallocarray(p->keys, cap, sizeof *p->keys);
	}
	if (p->type == LP_Y_MAP)
		p->keys[p->n] = key;
	p->v[p->n++] = v;
}

void
lp_yaml_put(struct lp_ynode *map, const char *key, struct lp_ynode *v)
{
	size_t i;

	for (i = 0; i < map->n; i++)
		if (!strcmp(map->keys[i], key)) {
			lp_yaml_free(map->v[i]);
			map->v[i] = v;
			return;
		}
	append(map, lp_xstrdup(key), v);
}

void
lp_yaml_push(struct lp_ynode *seq, struct lp_ynode *v)
{
	append(seq, NULL, v);
}

/*
 * A document is built from libyaml's events, not its document loader, so
 * that what lp never needs is refused before libyaml spends time on it:
 * nesting deeper than MAX_DEPTH (libyaml's scanner is quadratic in flow
 * depth: 30,000 "[" took 4 s, 100,000 took 45 s), aliases (a few hundred
 * bytes of nested ones expand to gigabytes, "billion laughs"; lp's files
 * never use them), input beyond MAX_BYTES, and duplicate keys.
 */
enum { MAX_BYTES = 16 << 20 };

struct frame {
	struct lp_ynode *n;
	char *key;		/* a mapping's key waiting for its value */
	struct lp_map *keys;	/* the mapping's keys so far */
};

struct src {
	FILE *fp;
	const char *file;
	size_t total;
	long line;		/* lines read so far, for the check below */
};

/* libyaml reports a control character at 1:1 wherever it is; the line is
 * named here instead. */
static int
read_fp(void *data, unsigned char *buf, size_t size, size_t *got)
{
	struct src *s = data;
	size_t i;

	*got = fread(buf, 1, size, s->fp);
	if (*got == 0 && ferror(s->fp))
		return 0;
	for (i = 0; i < *got; i++) {
		if (buf[i] == '\n')
			s->line++;
		else if ((buf[i] < 0x20 && buf[i] != '\t' && buf[i] != '\r') ||
		    buf[i] == 0x7f)
			lp_die_at(LP_EXIT_DATA, s->file, s->line + 1, 0, "control "
			    "character 0x%02x: not a YAML or JSON text",
			    buf[i]);
	}
	s->total += *got;
	if (s->total > MAX_BYTES)
		lp_die_at(LP_EXIT_DATA, s->file, 0, 0, "YAML input larger than "
		    "%d MiB: not a config lp reads", MAX_BYTES >> 20);
	return 1;
}

static void
attach(struct frame *st, int top, struct lp_ynode **root,
    struct lp_ynode *v)
{
	if (top < 0)
		*root = v;
	else if (st[top].n->type == LP_Y_MAP) {
		append(st[top].n, st[top].key, v);
		st[top].key = NULL;
	} else
		append(st[top].n, NULL, v);
}

#ifdef LP_FUZZ
static void
parser_gone(void *p)
{
	yaml_parser_delete(p);
}

static void
event_gone(void *ev)
{
	yaml_event_delete(ev);
}

static void
emitter_gone(void *e)
{
	yaml_emitter_delete(e);
}
#endif

/* The tree being built from libyaml's events: its open collections. */
struct build {
	struct frame st[MAX_DEPTH + 1];
	int top;		/* the innermost open one; -1: none */
	struct lp_ynode *root;
	const char *file;
};

/* A scalar: a mapping's key (refused when the mapping has it already),
 * kept for the value that follows, or a value, returned. */
static struct lp_ynode *
scalar_event(struct build *b, const yaml_event_t *ev, long line, long col)
{
	struct frame *f = b->top >= 0 ? &b->st[b->top] : NULL;
	struct lp_ynode *v;

	if (f && f->n->type == LP_Y_MAP && !f->key) {
		char *key = lp_xstrndup((char *)ev->data.scalar.value,
		    ev->data.scalar.length);

		if (!f->keys)
			f->keys = lp_map_new();
		if (lp_map_get(f->keys, key, -1) >= 0)
			lp_die_at(LP_EXIT_DATA, b->file, line, col,
			    "duplicate key \"%s\"", key);
		lp_map_put(f->keys, key, 1);
		f->key = key;
		return NULL;
	}
	v = node_new(LP_Y_SCALAR);
	v->s = lp_xstrndup((char *)ev->data.scalar.value,
	    ev->data.scalar.length);
	v->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	v->line = line;
	v->file = b->file;
	return v;
}

/* The start of a list or a mapping: a new open collection. */
static void
open_event(struct build *b, const yaml_event_t *ev, long line, long col)
{
	struct frame *f;

	if (b->top >= 0 && b->st[b->top].n->type == LP_Y_MAP &&
	    !b->st[b->top].key)
		lp_die_at(LP_EXIT_DATA, b->file, line, col,
		    "YAML mapping key is not a scalar");
	if (b->top + 1 >= MAX_DEPTH)
		lp_die_at(LP_EXIT_DATA, b->file, line, col, "YAML "
		    "nested more than %d deep", MAX_DEPTH);
	f = &b->st[++b->top];
	f->n = node_new(ev->type == YAML_SEQUENCE_START_EVENT ? LP_Y_SEQ :
	    LP_Y_MAP);
	f->n->line = line;
	f->n->file = b->file;
	f->key = NULL;
	f->keys = NULL;
}

/* One event into the tree; 1 at the end of the first document. */
static int
on_event(struct build *b, const yaml_event_t *ev)
{
	long line = (long)ev->start_mark.line + 1;
	long col = (long)ev->start_mark.column + 1;
	struct lp_ynode *v = NULL;

	switch (ev->type) {
	case YAML_STREAM_END_EVENT:
	case YAML_DOCUMENT_END_EVENT:
		return 1;	/* the first document only */
	case YAML_ALIAS_EVENT:
		lp_die_at(LP_EXIT_DATA, b->file, line, col, "YAML alias "
		    "\"*%s\": lp's files take no anchors and aliases "
		    "(write the value out)", ev->data.alias.anchor);
	case YAML_SCALAR_EVENT:
		v = scalar_event(b, ev, line, col);
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		open_event(b, ev, line, col);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		v = b->st[b->top].n;
		lp_map_free(b->st[b->top].keys);
		b->top--;
		break;
	default:
		break;
	}
	if (v)
		attach(b->st, b->top, &b->root, v);
	return 0;
}

/*
 * Every file lp reads as YAML (configs, model files, inputs.yaml, env.json)
 * is a mapping: an empty one (no bytes, a BOM, comments only) would read
 * as a map without keys and the error would blame a missing key.
 */
static void
check_root(const struct lp_ynode *root, const struct src *src)
{
	if (!root)
		lp_die_at(LP_EXIT_DATA, src->file, src->total ? src->line : 0, 0,
		    "empty: no YAML document (%s)", src->total ? "only "
		    "comments, blanks or a byte order mark" : "no bytes");
	if (root->type != LP_Y_MAP) {
		long line = root->line;
		const char *what = root->type == LP_Y_SEQ ? "a list" :
		    "one scalar";

		lp_die_at(LP_EXIT_DATA, src->file, line, 0, "the document is "
		    "%s, not a YAML mapping of keys", what);
	}
}

struct lp_ynode *
lp_yaml_load(FILE *fp, const char *file)
{
	struct src src = { fp, file, 0, 0 };
	struct build b;
	yaml_parser_t p;
	yaml_event_t ev;
	int done = 0;

	b.top = -1;
	b.root = NULL;
	b.file = file;
	if (!yaml_parser_initialize(&p))
		lp_die(LP_EXIT_USAGE, "yaml_parser_initialize failed");
	memset(&ev, 0, sizeof ev);
	LP_DEFER(parser_gone, &p);
	LP_DEFER(event_gone, &ev);
	yaml_parser_set_input(&p, read_fp, &src);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			if (p.error == YAML_READER_ERROR && ferror(fp))
				lp_die_sys("%s", file);
			lp_die_at(LP_EXIT_DATA, file, (long)p.problem_mark.line +
			    1, (long)p.problem_mark.column + 1, "YAML: %s%s%s",
			    p.problem ? p.problem : "cannot parse",
			    p.context ? " " : "", p.context ? p.context : "");
		}
		done = on_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	LP_UNDEFER();
	LP_UNDEFER();
	yaml_parser_delete(&p);
	check_root(b.root, &src);
	return b.root;
}

struct lp_ynode *
lp_yaml_load_path(const char *path)
{
	FILE *fp = fopen(path, "r");
	struct lp_ynode *n;

	if (!fp)
		lp_die_sys("%s", path);
	n = lp_yaml_load(fp, path);
	fclose(fp);
	return n;
}

struct emit {
	yaml_emitter_t e;
	FILE *fp;
};

static void
emit_ev(struct emit *em, yaml_event_t *ev)
{
	if (!yaml_emitter_emit(&em->e, ev)) {
		if (ferror(em->fp))
			lp_die_sys("<output>");
		lp_die(LP_EXIT_USAGE, "YAML emitter: %s",
		    em->e.problem ? em->e.problem : "failed");
	}
}

static void
emit_scalar(struct emit *em, const char *s, int quoted)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
	    (int)strlen(s), 1, 1, quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE :
	    YAML_ANY_SCALAR_STYLE);
	emit_ev(em, &ev);
}

static void
emit_node(struct emit *em, const struct lp_ynode *n)
{
	yaml_event_t ev;
	size_t i;

	switch (n->type) {
	case LP_Y_SCALAR:
		emit_scalar(em, n->s, n->quoted);
		return;
	case LP_Y_SEQ:
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
		    n->n ? YAML_BLOCK_SEQUENCE_STYLE : YAML_FLOW_SEQUENCE_STYLE);
		emit_ev(em, &ev);
		for (i = 0; i < n->n; i++)
			emit_node(em, n->v[i]);
		yaml_sequence_end_event_initialize(&ev);
		emit_ev(em, &ev);
		return;
	case LP_Y_MAP:
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
		    n->n ? YAML_BLOCK_MAPPING_STYLE : YAML_FLOW_MAPPING_STYLE);
		emit_ev(em, &ev);
		for (i = 0; i < n->n; i++) {
			emit_scalar(em, n->keys[i], 0);
			emit_node(em, n->v[i]);
		}
		yaml_mapping_end_event_initialize(&ev);
		emit_ev(em, &ev);
		return;
	}
}

void
lp_yaml_emit(FILE *fp, const struct lp_ynode *root, const char *comment)
{
	struct emit em;
	yaml_event_t ev;

	if (comment) {
		const char *p = comment;

		while (*p) {
			size_t n = strcspn(p, "\n");

			fprintf(fp, "# %.*s\n", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	em.fp = fp;
	if (!yaml_emitter_initialize(&em.e))
		lp_die(LP_EXIT_USAGE, "yaml_emitter_initialize failed");
	LP_DEFER(emitter_gone, &em.e);
	yaml_emitter_set_output_file(&em.e, fp);
	yaml_emitter_set_unicode(&em.e, 1);
	yaml_emitter_set_width(&em.e, -1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	emit_ev(&em, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	emit_ev(&em, &ev);
	emit_node(&em, root);
	yaml_document_end_event_initialize(&ev, 1);
	emit_ev(&em, &ev);
	yaml_stream_end_event_initialize(&ev);
	emit_ev(&em, &ev);
	if (!yaml_emitter_flush(&em.e))
		lp_die_sys("<output>");
	LP_UNDEFER();
	yaml_emitter_delete(&em.e);
}

/*
 * The preset's value says the type: a whole number stays whole, a number a
 * number, a boolean a boolean; a quoted or textual value takes any text.
 * A key named "device" also takes -1, every device, as the ncu presets say.
 * 0 if value fits where n is (key: the last part of its path), else
 * lp_yaml_set's code.
 */
static int
fits(const struct lp_ynode *n, const char *key, const char *value)
{
	double v;

	if (!n->quoted && lp_num_get(n->s, &v)) {
		double was = v;

		if (!lp_num_get(value, &v) || fabs(v) > 1e18)
			return -2;
		if (was >= 0 && v < 0 && !(v == -1 && !strcmp(key, "device")))
			return -7;
		if (!strpbrk(n->s, ".eE") && v != floor(v))
			return -6;
	}
	if (!n->quoted && (!strcmp(n->s, "true") || !strcmp(n->s, "false")) &&
	    strcmp(value, "true") && strcmp(value, "false"))
		return -3;
	return 0;
}

void
lp_yaml_merge(struct lp_ynode *dst, struct lp_ynode *src)
{
	size_t i, j;

	for (i = 0; i < src->n; i++) {
		struct lp_ynode *sv = src->v[i];

		for (j = 0; j < dst->n; j++)
			if (!strcmp(dst->keys[j], src->keys[i]))
				break;
		if (j < dst->n && dst->v[j]->type == LP_Y_MAP &&
		    sv->type == LP_Y_MAP) {
			lp_yaml_merge(dst->v[j], sv);
		} else if (j < dst->n) {
			/* a later file changes a value, never its kind */
			const struct lp_ynode *dv = dst->v[j];
			static const char *const kinds[] = { "a value", "a list",
				"a mapping" };

			if (dv->type != sv->type)
				lp_die_at(LP_EXIT_DATA, sv->file ? sv->file :
				    "<yaml>", sv->line, 0, "%s: %s here, %s in the "
				    "file before", src->keys[i], kinds[sv->type],
				    kinds[dv->type]);
			if (sv->type == LP_Y_SCALAR && !sv->quoted &&
			    fits(dv, src->keys[i], sv->s))
				lp_die_at(LP_EXIT_DATA, sv->file ? sv->file :
				    "<yaml>", sv->line, 0, "%s: \"%s\" where the "
				    "file before has %s", src->keys[i], sv->s,
				    dv->s);
			lp_yaml_free(dst->v[j]);
			dst->v[j] = sv;
		} else {
			append(dst, src->keys[i], sv);
			src->keys[i] = NULL;
		}
		src->v[i] = NULL;
	}
	lp_yaml_free(src);
}

/* Walks one path component; returns the child slot or NULL. */
static struct lp_ynode **
child(const struct lp_ynode *n, const char *comp, size_t len)
{
	size_t i;

	if (n->type == LP_Y_MAP) {
		for (i = 0; i < n->n; i++)
			if (strlen(n->keys[i]) == len &&
			    !strncmp(n->keys[i], comp, len))
				return &n->v[i];
	} else if (n->type == LP_Y_SEQ && len && len < 10 &&
	    strspn(comp, "0123456789") >= len) {
		i = (size_t)strtoul(comp, NULL, 10);
		if (i < n->n)
			return &n->v[i];
	}
	return NULL;
}

static struct lp_ynode **
walk(const struct lp_ynode *root, const char *path)
{
	struct lp_ynode **slot = NULL;
	const struct lp_ynode *n = root;

	if (!*path)
		return NULL;
	for (;;) {
		size_t len = strcspn(path, ".");

		if (!n || !(slot = child(n, path, len)))
			return NULL;
		n = *slot;
		if (!path[len])
			return slot;
		path += len + 1;
	}
}

const struct lp_ynode *
lp_yaml_get(const struct lp_ynode *root, const char *path)
{
	struct lp_ynode **slot;

	if (!*path)
		return root;
	slot = walk(root, path);
	return slot ? *slot : NULL;
}

const char *
lp_yaml_str(const struct lp_ynode *root, const char *path, const char *dflt)
{
	const struct lp_ynode *n = lp_yaml_get(root, path);

	if (n && n->type != LP_Y_SCALAR)
		lp_die_at(LP_EXIT_DATA, n->file ? n->file : "<yaml>", n->line, 0,
		    "%s: expected a value, got a %s", path, n->type == LP_Y_MAP ?
		    "mapping" : "list");
	return n ? n->s : dflt;
}

int
lp_yaml_set(struct lp_ynode *root, const char *path, const char *value)
{
	struct lp_ynode **slot = walk(root, path), *n;
	int k;

	if (!slot)
		return -1;
	n = *slot;
	if (n->type == LP_Y_MAP)
		return -4;
	if (*value == '{' || *value == '[')
		return -5;
	if (n->type == LP_Y_SEQ) {
		/* a list is given as "a,b,c"; "" is the empty list */
		struct lp_ynode *seq = lp_yaml_seq();
		const char *p = value;

		while (*p) {
			size_t len = strcspn(p, ",");
			char *item = lp_xstrndup(p, len);

			lp_yaml_push(seq, lp_yaml_scalar(item, 0));
			free(item);
			p += len + (p[len] == ',');
		}
		seq->line = n->line;
		lp_yaml_free(n);
		*slot = seq;
		return 0;
	}
	if ((k = fits(n, strrchr(path, '.') ? strrchr(path, '.') + 1 : path,
	    value)))
		return k;
	free(n->s);
	n->s = lp_xstrdup(value);
	return 0;
}
