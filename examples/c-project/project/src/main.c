/* A small inventory: somewhere a struct is assigned to an int. */
#include <string.h>
#include "item.h"
#include "report.h"

static struct item stock[4];

static int total_count(void) {
    int total = 0;
    for (int i = 0; i < 4; i++) {
        total = stock[i];
    }
    return total;
}

int main(void) {
    strcpy(stock[0].name, "bolt");
    stock[0].count = 10;
    stock[0].price = 0.25;
    report_print(stock, 1);
    return total_count() > 0 ? 0 : 1;
}
