#ifndef REPORT_H
#define REPORT_H
#include "item.h"
void report_print(const struct item *items, int n);
int report_width(void);
#endif
