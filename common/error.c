#include "error.h"

#include <stdio.h>
#include <string.h>

int error_set(struct error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int error_prefix(struct error *err, const char *fmt, ...)
{
	char old[sizeof(err->msg)];
	char head[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return -1;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	/* Long messages are cut, never overrun: the cause at the front matters most. */
	size_t len = strlen(head);

	if (len > sizeof(err->msg) - 3)
		len = sizeof(err->msg) - 3;
	memcpy(err->msg, head, len);
	memcpy(err->msg + len, ": ", 2);
	len += 2;
	strncpy(err->msg + len, old, sizeof(err->msg) - len - 1);
	err->msg[sizeof(err->msg) - 1] = '\0';
	return -1;
}

void error_print(const char *prog, const struct error *err)
{
	fprintf(stderr, "%s: error: %s\n", prog,
		err && err->msg[0] ? err->msg : "unknown failure");
}

void warn_print(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: warning: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *error_quote(char *out, size_t size, const char *text, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;

	for (i = 0; text[i] && i < max && o + 5 < size; i++) {
		unsigned char ch = (unsigned char)text[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '\\' && ch != '\'') {
			out[o++] = (char)ch;
			continue;
		}
		out[o++] = '\\';
		if (ch == '\\' || ch == '\'') {
			out[o++] = (char)ch;
			continue;
		}
		out[o++] = 'x';
		out[o++] = hex[ch >> 4];
		out[o++] = hex[ch & 15];
	}
	if (text[i] && o + 4 <= size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return out;
}
