/* ui_placeholder.c: keeps the UI library non-empty until the screen lands. */
int ui_placeholder(void);
int ui_placeholder(void) { return 0; }
