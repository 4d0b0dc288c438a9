/* A small inventory tool. Somewhere below, a struct is assigned to an int:
   gcc rejects it with "incompatible types when assigning to type 'int' from type
   'struct item'". lopper finds the few lines that matter. */
#include <stdio.h>
#include <string.h>

#define MAX_ITEMS 64

struct item {
    char name[32];
    int count;
    double price;
};

struct inventory {
    struct item items[MAX_ITEMS];
    int size;
};

static void inventory_init(struct inventory *inv) {
    inv->size = 0;
    memset(inv->items, 0, sizeof inv->items);
}

static int inventory_add(struct inventory *inv, const char *name, int count, double price) {
    if (inv->size >= MAX_ITEMS) {
        return -1;
    }
    struct item *it = &inv->items[inv->size++];
    strncpy(it->name, name, sizeof it->name - 1);
    it->count = count;
    it->price = price;
    return inv->size - 1;
}

static double inventory_value(const struct inventory *inv) {
    double total = 0.0;
    for (int i = 0; i < inv->size; i++) {
        total += inv->items[i].count * inv->items[i].price;
    }
    return total;
}

static int inventory_find(const struct inventory *inv, const char *name) {
    for (int i = 0; i < inv->size; i++) {
        if (strcmp(inv->items[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

static int inventory_restock(struct inventory *inv, const char *name, int extra) {
    int idx = inventory_find(inv, name);
    int count;
    if (idx < 0) {
        return -1;
    }
    count = inv->items[idx];
    inv->items[idx].count = count + extra;
    return inv->items[idx].count;
}

static void inventory_print(const struct inventory *inv) {
    for (int i = 0; i < inv->size; i++) {
        const struct item *it = &inv->items[i];
        printf("%-20s %5d %8.2f\n", it->name, it->count, it->price);
    }
    printf("total value: %.2f\n", inventory_value(inv));
}

int main(void) {
    struct inventory inv;
    inventory_init(&inv);
    inventory_add(&inv, "bolts", 120, 0.05);
    inventory_add(&inv, "nuts", 300, 0.02);
    inventory_add(&inv, "washers", 80, 0.01);
    inventory_restock(&inv, "nuts", 50);
    inventory_print(&inv);
    return 0;
}
