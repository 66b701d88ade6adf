package io.vecruntime.bench;

import java.util.Random;

/**
 * TPC-DS {@code store_sales}-shaped rows, column by column: 9 INT surrogate keys, the BIGINT
 * ticket number, INT quantity and 12 DECIMAL(7,2) amounts (unscaled ints), about 4.5% nulls
 * except in the ticket and item keys. Rows come in tickets of about 10 line items sharing the
 * date, time, customer, demographics, address and store keys, as dsdgen writes them.
 */
final class StoreSales {
  static final String[] INT_KEYS = {
    "ss_sold_date_sk", "ss_sold_time_sk", "ss_item_sk", "ss_customer_sk", "ss_cdemo_sk",
    "ss_hdemo_sk", "ss_addr_sk", "ss_store_sk", "ss_promo_sk"
  };
  static final String[] AMOUNTS = {
    "ss_wholesale_cost", "ss_list_price", "ss_sales_price", "ss_ext_discount_amt",
    "ss_ext_sales_price", "ss_ext_wholesale_cost", "ss_ext_list_price", "ss_ext_tax",
    "ss_coupon_amt", "ss_net_paid", "ss_net_paid_inc_tax", "ss_net_profit"
  };

  final int rows;
  /** INT columns: the 9 keys then ss_quantity; values and nulls. */
  final int[][] ints = new int[10][];
  final boolean[][] intNulls = new boolean[10][];
  final long[] ticket;
  final int[][] amounts = new int[12][];
  final boolean[][] amountNulls = new boolean[12][];

  StoreSales(int rows, long seed) {
    this.rows = rows;
    Random r = new Random(seed);
    for (int c = 0; c < 10; c++) {
      ints[c] = new int[rows];
      intNulls[c] = new boolean[rows];
    }
    for (int c = 0; c < 12; c++) {
      amounts[c] = new int[rows];
      amountNulls[c] = new boolean[rows];
    }
    ticket = new long[rows];
    int[] shared = new int[8];
    long t = 0;
    int left = 0;
    for (int i = 0; i < rows; i++) {
      if (left == 0) {
        t++;
        left = 1 + r.nextInt(20);
        shared[0] = 2450816 + r.nextInt(1823);
        shared[1] = 28800 + r.nextInt(46800);
        shared[3] = 1 + r.nextInt(100_000);
        shared[4] = 1 + r.nextInt(1_920_800);
        shared[5] = 1 + r.nextInt(7200);
        shared[6] = 1 + r.nextInt(50_000);
        shared[7] = 1 + 2 * r.nextInt(6);
      }
      left--;
      ticket[i] = t;
      for (int c = 0; c < 9; c++) {
        int v = c == 2 ? 1 + r.nextInt(18_000) : c == 8 ? 1 + r.nextInt(300) : shared[c];
        ints[c][i] = v;
        intNulls[c][i] = c != 2 && r.nextInt(1000) < 45;
      }
      int quantity = 1 + r.nextInt(100);
      ints[9][i] = quantity;
      intNulls[9][i] = r.nextInt(1000) < 45;
      int wholesale = 100 + r.nextInt(9900);
      int list = wholesale + r.nextInt(wholesale);
      int sales = list - r.nextInt(list / 2 + 1);
      int[] v = {
        wholesale, list, sales, (list - sales) * quantity, sales * quantity, wholesale * quantity,
        list * quantity, sales * quantity * r.nextInt(10) / 100, r.nextInt(10) == 0 ? r.nextInt(sales * quantity) : 0,
        0, 0, 0
      };
      v[9] = v[4] - v[8];
      v[10] = v[9] + v[7];
      v[11] = v[9] - v[5];
      for (int c = 0; c < 12; c++) {
        amounts[c][i] = v[c];
        amountNulls[c][i] = r.nextInt(1000) < 45;
      }
    }
  }
}
