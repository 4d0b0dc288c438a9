#include <stdio.h>
#include "report.h"
int report_width(void) { return 40; }
void report_print(const struct item *items, int n) {
    for (int i = 0; i < n; i++) {
        printf("%-*s %5d %8.2f\n", report_width(), items[i].name, items[i].count, item_value(&items[i]));
    }
}
