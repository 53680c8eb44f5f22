/*
 * The native example REA's demo analyses: `npm run demo` compiles this file with the system C
 * compiler and runs `rea analyze` on the program. A handful of functions call each other so that the
 * overview has procedures, call edges, imports and strings to show.
 */
#include <stdio.h>
#include <string.h>

/* Adds up the character codes of a string: a small loop with a conditional branch. */
__attribute__((noinline)) static unsigned checksum(const char *text) {
  unsigned sum = 0;
  for (size_t i = 0; i < strlen(text); i += 1) {
    if (text[i] != ' ') sum = sum * 31u + (unsigned char)text[i];
  }
  return sum;
}

/* Greets one name, calling the C library. */
__attribute__((noinline)) static void greet(const char *name) {
  printf("hello, %s (checksum %u)\n", name, checksum(name));
}

/* Greets every name of a list. */
__attribute__((noinline)) static int greet_all(const char *const *names, int count) {
  for (int i = 0; i < count; i += 1) greet(names[i]);
  return count;
}

int main(int argc, char **argv) {
  static const char *const fallback[] = {"world", "reverse engineer"};
  int greeted = argc > 1 ? greet_all((const char *const *)argv + 1, argc - 1) : greet_all(fallback, 2);
  puts(greeted == 1 ? "greeted one name" : "greeted several names");
  return 0;
}
