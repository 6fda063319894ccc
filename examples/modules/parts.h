/* parts.h - the parts of the modules example, one module each. */
#ifndef EXAMPLE_PARTS_H
#define EXAMPLE_PARTS_H

void handle_connection(int id); /* net.c, which calls tls.c */
void tls_handshake(int id);     /* tls.c */
void store_record(int id);      /* storage.c */

#endif
