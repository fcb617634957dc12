/* protobuf-check.c - the protobuf writer (export/protobuf.h) on the
 * examples of the encoding guide (protobuf.dev/programming-guides/encoding):
 * prints each encoding in hex, one "NAME HEX" line, for t3200 to compare
 * with the guide's bytes. */
#include <stdio.h>

#include "../../export/protobuf.h"

static void show(const char *name, struct pb_buf *b)
{
	printf("%s ", name);
	for (size_t i = 0; i < b->len; i++)
		printf("%02x", b->data[i]);
	printf("%s\n", b->failed ? " failed" : "");
	b->len = 0;
}

int main(void)
{
	struct pb_buf b = { 0 }, inner = { 0 };
	const uint64_t packed[] = { 3, 270, 86942 };

	pb_uint(&b, 1, 150);		/* Test1.a = 150 */
	show("varint", &b);
	pb_string(&b, 2, "testing");	/* Test2.b = "testing" */
	show("string", &b);
	pb_uint(&inner, 1, 150);	/* Test3.c = Test1 { a: 150 } */
	pb_message(&b, 3, &inner);
	show("message", &b);
	pb_packed(&b, 4, packed, 3);	/* Test5.f = [3, 270, 86942] */
	show("packed", &b);
	pb_int(&b, 1, -2);		/* int64 -2: ten bytes */
	show("negative", &b);
	pb_uint(&b, 1, UINT64_MAX);
	show("max", &b);
	pb_buf_free(&b);
	pb_buf_free(&inner);
	return 0;
}
