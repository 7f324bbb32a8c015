/* main.c: pmutop entry point (placeholder until the CLI lands). */
#include <stdio.h>
int main(void)
{
	puts("pmutop " PMUTOP_VERSION);
	return 0;
}
