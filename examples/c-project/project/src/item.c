#include "item.h"
double item_value(const struct item *it) {
    return it->count * it->price;
}
