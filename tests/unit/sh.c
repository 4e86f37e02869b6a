/* sh.c: shell quoting and splitting: what goes in comes out. */
#include <stdlib.h>

#include "util.h"
#include "tap.h"

static const char *
quote(const char *w)
{
	static struct lp_sb b;

	lp_sb_reset(&b);
	lp_sh_quote(&b, w);
	return lp_sb_str(&b);
}

static int
splits(const char *s, size_t n, const char *const *want)
{
	char **argv;
	size_t argc, i;
	const char *err;
	int good;

	if (lp_sh_split(s, &argv, &argc, &err))
		return 0;
	good = argc == n;
	for (i = 0; good && i < n; i++)
		good = !strcmp(argv[i], want[i]);
	lp_argv_free(argv, argc);
	return good;
}

int
main(void)
{
	const char *err;
	char **argv;
	size_t argc;

	is_str(quote("plain-word_1.2/x:y,z=@%+"), "plain-word_1.2/x:y,z=@%+",
	    "safe characters stay bare");
	is_str(quote("two words"), "'two words'", "spaces quoted");
	is_str(quote("it's"), "'it'\\''s'", "single quote closed and escaped");
	is_str(quote("$(rm -rf /)"), "'$(rm -rf /)'", "command substitution quoted");
	is_str(quote(""), "''", "empty word");
	is_str(quote("a\nb"), "'a\nb'", "newline inside quotes");

	ok(splits("python3 my_llm.py --tokens 32", 4, (const char *const[]){
	    "python3", "my_llm.py", "--tokens", "32" }), "plain words");
	ok(splits("  a\t b \n", 2, (const char *const[]){ "a", "b" }), "blanks");
	ok(splits("'my file.py' \"x y\"", 2, (const char *const[]){
	    "my file.py", "x y" }), "both quotes");
	ok(splits("a'b'\"c\"d", 1, (const char *const[]){ "abcd" }),
	    "quotes join a word");
	ok(splits("'' \"\"", 2, (const char *const[]){ "", "" }),
	    "empty quoted words are arguments");
	ok(splits("\"$(rm -rf x)\" $HOME `id` *", 4, (const char *const[]){
	    "$(rm -rf x)", "$HOME", "`id`", "*" }), "nothing is expanded");
	ok(splits("\"a\\\"b\\\\c\\d\"", 1, (const char *const[]){ "a\"b\\c\\d" }),
	    "backslash in double quotes as sh");
	ok(splits("a\\ b c\\'d", 2, (const char *const[]){ "a b", "c'd" }),
	    "backslash outside quotes");
	ok(splits("", 0, NULL), "empty string: no words");
	ok(lp_sh_split("'open", &argv, &argc, &err) == -1 &&
	    !strcmp(err, "unterminated single quote"), "unterminated single");
	ok(lp_sh_split("\"open", &argv, &argc, &err) == -1, "unterminated double");
	ok(lp_sh_split("x\\", &argv, &argc, &err) == -1, "trailing backslash");
	{
		/* quote then split gives the word back */
		const char *words[] = { "a b", "it's", "$(x)", "\"q\"", "", "\\" };
		struct lp_sb line = { 0 };
		size_t i;
		int good;

		for (i = 0; i < 6; i++) {
			if (i)
				lp_sb_addc(&line, ' ');
			lp_sh_quote(&line, words[i]);
		}
		good = !lp_sh_split(lp_sb_str(&line), &argv, &argc, &err) &&
		    argc == 6;
		for (i = 0; good && i < 6; i++)
			good = !strcmp(argv[i], words[i]);
		ok(good, "quote then split is the identity");
		if (good)
			lp_argv_free(argv, argc);
		lp_sb_free(&line);
	}
	{
		struct lp_av av = { 0 };
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		lp_av_push(&av, "nsys");
		lp_av_pushf(&av, "--x=%d", 3);
		lp_av_push(&av, "a b");
		lp_av_print(m, &av, 0);
		lp_av_print(m, &av, 1);
		fclose(m);
		ok(len == 18 + 14 && !memcmp(buf, "nsys --x=3 'a b'\n", 17) &&
		    !memcmp(buf + 17, "nsys\0--x=3\0a b\0", 15), "av printed both ways");
		free(buf);
		lp_av_free(&av);
	}
	return tap_done();
}
