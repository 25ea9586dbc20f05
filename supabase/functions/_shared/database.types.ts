export type Json =
  | string
  | number
  | boolean
  | null
  | { [key: string]: Json | undefined }
  | Json[]

export type Database = {
  public: {
    Tables: {
      email_outbox: {
        Row: {
          attempts: number
          batch_key: string | null
          claim_expires_at: string | null
          claim_token: string | null
          claimed_at: string | null
          created_at: string
          delivery_unknown: boolean
          failures: number
          id: string
          key_round: number
          kind: string
          last_error: string | null
          order_id: string
          payload: Json | null
          provider_id: string | null
          refund_id: string | null
          reply_to: string | null
          sent_at: string | null
          status: string
          to_email: string
          updated_at: string
          email_outbox_message: Json | null
        }
        Insert: {
          attempts?: number
          batch_key?: string | null
          claim_expires_at?: string | null
          claim_token?: string | null
          claimed_at?: string | null
          created_at?: string
          delivery_unknown?: boolean
          failures?: number
          id?: string
          key_round?: number
          kind: string
          last_error?: string | null
          order_id: string
          payload?: Json | null
          provider_id?: string | null
          refund_id?: string | null
          reply_to?: string | null
          sent_at?: string | null
          status?: string
          to_email: string
          updated_at?: string
        }
        Update: {
          attempts?: number
          batch_key?: string | null
          claim_expires_at?: string | null
          claim_token?: string | null
          claimed_at?: string | null
          created_at?: string
          delivery_unknown?: boolean
          failures?: number
          id?: string
          key_round?: number
          kind?: string
          last_error?: string | null
          order_id?: string
          payload?: Json | null
          provider_id?: string | null
          refund_id?: string | null
          reply_to?: string | null
          sent_at?: string | null
          status?: string
          to_email?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "email_outbox_order_id_fkey"
            columns: ["order_id"]
            isOneToOne: false
            referencedRelation: "orders"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "email_outbox_refund_id_fkey"
            columns: ["refund_id"]
            isOneToOne: false
            referencedRelation: "refunds"
            referencedColumns: ["id"]
          },
        ]
      }
      idempotency_keys: {
        Row: {
          created_at: string
          key: string
          order_id: string
          request_hash: string
          store_id: string
        }
        Insert: {
          created_at?: string
          key: string
          order_id: string
          request_hash: string
          store_id: string
        }
        Update: {
          created_at?: string
          key?: string
          order_id?: string
          request_hash?: string
          store_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "idempotency_keys_order_id_fkey"
            columns: ["order_id"]
            isOneToOne: false
            referencedRelation: "orders"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "idempotency_keys_store_id_fkey"
            columns: ["store_id"]
            isOneToOne: false
            referencedRelation: "stores"
            referencedColumns: ["id"]
          },
        ]
      }
      order_counters: {
        Row: {
          last_sequence: number
          store_id: string
          updated_at: string
          year: number
        }
        Insert: {
          last_sequence: number
          store_id: string
          updated_at?: string
          year: number
        }
        Update: {
          last_sequence?: number
          store_id?: string
          updated_at?: string
          year?: number
        }
        Relationships: [
          {
            foreignKeyName: "order_counters_store_id_fkey"
            columns: ["store_id"]
            isOneToOne: false
            referencedRelation: "stores"
            referencedColumns: ["id"]
          },
        ]
      }
      order_items: {
        Row: {
          created_at: string
          id: string
          line_total: number
          order_id: string
          position: number
          product_id: string
          product_name: string
          quantity: number
          stock_source: string | null
          unit_price: number
          variant_id: string | null
          variant_name: string | null
        }
        Insert: {
          created_at?: string
          id?: string
          line_total: number
          order_id: string
          position: number
          product_id: string
          product_name: string
          quantity: number
          stock_source?: string | null
          unit_price: number
          variant_id?: string | null
          variant_name?: string | null
        }
        Update: {
          created_at?: string
          id?: string
          line_total?: number
          order_id?: string
          position?: number
          product_id?: string
          product_name?: string
          quantity?: number
          stock_source?: string | null
          unit_price?: number
          variant_id?: string | null
          variant_name?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "order_items_order_id_fkey"
            columns: ["order_id"]
            isOneToOne: false
            referencedRelation: "orders"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "order_items_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "order_items_variant_of_its_product"
            columns: ["product_id", "variant_id"]
            isOneToOne: false
            referencedRelation: "product_variants"
            referencedColumns: ["product_id", "id"]
          },
        ]
      }
      order_rate_limits: {
        Row: {
          bucket: string
          hits: number
          window_start: string
        }
        Insert: {
          bucket: string
          hits: number
          window_start: string
        }
        Update: {
          bucket?: string
          hits?: number
          window_start?: string
        }
        Relationships: []
      }
      order_settings: {
        Row: {
          singleton: boolean
          store_order_slots: number
        }
        Insert: {
          singleton?: boolean
          store_order_slots?: number
        }
        Update: {
          singleton?: boolean
          store_order_slots?: number
        }
        Relationships: []
      }
      order_status_history: {
        Row: {
          actor: string
          carrier: string | null
          changed_at: string
          changed_by: string
          from_status: Database["public"]["Enums"]["order_status"] | null
          id: number
          note: string | null
          order_id: string
          to_status: Database["public"]["Enums"]["order_status"]
          tracking_number: string | null
          tracking_url: string | null
        }
        Insert: {
          actor?: string
          carrier?: string | null
          changed_at?: string
          changed_by?: string
          from_status?: Database["public"]["Enums"]["order_status"] | null
          id?: never
          note?: string | null
          order_id: string
          to_status: Database["public"]["Enums"]["order_status"]
          tracking_number?: string | null
          tracking_url?: string | null
        }
        Update: {
          actor?: string
          carrier?: string | null
          changed_at?: string
          changed_by?: string
          from_status?: Database["public"]["Enums"]["order_status"] | null
          id?: never
          note?: string | null
          order_id?: string
          to_status?: Database["public"]["Enums"]["order_status"]
          tracking_number?: string | null
          tracking_url?: string | null
        }
        Relationships: [
          {
            foreignKeyName: "order_status_history_order_id_fkey"
            columns: ["order_id"]
            isOneToOne: false
            referencedRelation: "orders"
            referencedColumns: ["id"]
          },
        ]
      }
      orders: {
        Row: {
          buyer_email: string
          buyer_name: string
          buyer_phone: string
          buyer_user_id: string | null
          checkout_fee: number
          client_ip: string | null
          created_at: string
          created_txid: unknown
          currency: string
          final_amount: number
          gateway_method: string | null
          id: string
          order_number: string | null
          order_sequence: number | null
          order_year: number
          payment_method: string
          payment_proof_url: string | null
          shipping_address: NonNullable<Json>
          status: Database["public"]["Enums"]["order_status"]
          store_id: string
          time_zone: string
          total_amount: number
          updated_at: string
        }
        Insert: {
          buyer_email: string
          buyer_name: string
          buyer_phone: string
          buyer_user_id?: string | null
          checkout_fee: number
          client_ip?: string | null
          created_at?: string
          created_txid?: unknown
          currency: string
          final_amount: number
          gateway_method?: string | null
          id?: string
          order_number?: string | null
          order_sequence?: number | null
          order_year: number
          payment_method: string
          payment_proof_url?: string | null
          shipping_address: NonNullable<Json>
          status?: Database["public"]["Enums"]["order_status"]
          store_id: string
          time_zone?: string
          total_amount: number
          updated_at?: string
        }
        Update: {
          buyer_email?: string
          buyer_name?: string
          buyer_phone?: string
          buyer_user_id?: string | null
          checkout_fee?: number
          client_ip?: string | null
          created_at?: string
          created_txid?: unknown
          currency?: string
          final_amount?: number
          gateway_method?: string | null
          id?: string
          order_number?: string | null
          order_sequence?: number | null
          order_year?: number
          payment_method?: string
          payment_proof_url?: string | null
          shipping_address?: NonNullable<Json>
          status?: Database["public"]["Enums"]["order_status"]
          store_id?: string
          time_zone?: string
          total_amount?: number
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "orders_store_id_fkey"
            columns: ["store_id"]
            isOneToOne: false
            referencedRelation: "stores"
            referencedColumns: ["id"]
          },
        ]
      }
      payment_provider_orders: {
        Row: {
          amount: number
          created_at: string
          currency: string
          order_id: string
          provider: string
          provider_order_id: string
        }
        Insert: {
          amount: number
          created_at?: string
          currency: string
          order_id: string
          provider: string
          provider_order_id: string
        }
        Update: {
          amount?: number
          created_at?: string
          currency?: string
          order_id?: string
          provider?: string
          provider_order_id?: string
        }
        Relationships: [
          {
            foreignKeyName: "payment_provider_orders_order_id_fkey"
            columns: ["order_id"]
            isOneToOne: true
            referencedRelation: "orders"
            referencedColumns: ["id"]
          },
        ]
      }
      payments: {
        Row: {
          amount: number
          currency: string
          expected_amount: number | null
          expected_currency: string | null
          fee_shortfall: number | null
          id: string
          method: string | null
          order_id: string | null
          order_status: Database["public"]["Enums"]["order_status"] | null
          outcome: string
          provider: string
          provider_event_id: string
          provider_payment_id: string
          received_at: string
          refund_due: boolean
        }
        Insert: {
          amount: number
          currency: string
          expected_amount?: number | null
          expected_currency?: string | null
          fee_shortfall?: number | null
          id?: string
          method?: string | null
          order_id?: string | null
          order_status?: Database["public"]["Enums"]["order_status"] | null
          outcome: string
          provider: string
          provider_event_id: string
          provider_payment_id: string
          received_at?: string
          refund_due?: boolean
        }
        Update: {
          amount?: number
          currency?: string
          expected_amount?: number | null
          expected_currency?: string | null
          fee_shortfall?: number | null
          id?: string
          method?: string | null
          order_id?: string | null
          order_status?: Database["public"]["Enums"]["order_status"] | null
          outcome?: string
          provider?: string
          provider_event_id?: string
          provider_payment_id?: string
          received_at?: string
          refund_due?: boolean
        }
        Relationships: [
          {
            foreignKeyName: "payments_order_id_fkey"
            columns: ["order_id"]
            isOneToOne: false
            referencedRelation: "orders"
            referencedColumns: ["id"]
          },
        ]
      }
      product_variants: {
        Row: {
          created_at: string
          id: string
          imported_stock: number | null
          is_active: boolean
          name: string
          price: number | null
          product_id: string
          sku: string | null
          stock_quantity: number | null
          updated_at: string
        }
        Insert: {
          created_at?: string
          id?: string
          imported_stock?: number | null
          is_active?: boolean
          name: string
          price?: number | null
          product_id: string
          sku?: string | null
          stock_quantity?: number | null
          updated_at?: string
        }
        Update: {
          created_at?: string
          id?: string
          imported_stock?: number | null
          is_active?: boolean
          name?: string
          price?: number | null
          product_id?: string
          sku?: string | null
          stock_quantity?: number | null
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "product_variants_product_id_fkey"
            columns: ["product_id"]
            isOneToOne: false
            referencedRelation: "products"
            referencedColumns: ["id"]
          },
        ]
      }
      products: {
        Row: {
          created_at: string
          id: string
          imported_stock: number | null
          is_active: boolean
          name: string
          price: number
          sku: string | null
          stock_quantity: number | null
          store_id: string
          updated_at: string
        }
        Insert: {
          created_at?: string
          id?: string
          imported_stock?: number | null
          is_active?: boolean
          name: string
          price: number
          sku?: string | null
          stock_quantity?: number | null
          store_id: string
          updated_at?: string
        }
        Update: {
          created_at?: string
          id?: string
          imported_stock?: number | null
          is_active?: boolean
          name?: string
          price?: number
          sku?: string | null
          stock_quantity?: number | null
          store_id?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "products_store_id_fkey"
            columns: ["store_id"]
            isOneToOne: false
            referencedRelation: "stores"
            referencedColumns: ["id"]
          },
        ]
      }
      refund_events: {
        Row: {
          changed: boolean
          provider: string
          provider_event_id: string
          provider_refund_id: string
          received_at: string
          refund_id: string
          status: string
        }
        Insert: {
          changed: boolean
          provider: string
          provider_event_id: string
          provider_refund_id: string
          received_at?: string
          refund_id: string
          status: string
        }
        Update: {
          changed?: boolean
          provider?: string
          provider_event_id?: string
          provider_refund_id?: string
          received_at?: string
          refund_id?: string
          status?: string
        }
        Relationships: [
          {
            foreignKeyName: "refund_events_refund_id_fkey"
            columns: ["refund_id"]
            isOneToOne: false
            referencedRelation: "refunds"
            referencedColumns: ["id"]
          },
        ]
      }
      refunds: {
        Row: {
          amount: number
          attempts: number
          claim_expires_at: string | null
          claim_token: string | null
          created_at: string
          currency: string
          id: string
          last_attempt_at: string | null
          last_error: string | null
          order_id: string
          payment_id: string | null
          provider_refund_id: string | null
          status: string
          updated_at: string
          refund_answer: Json | null
          refund_claim_message: Json | null
        }
        Insert: {
          amount: number
          attempts?: number
          claim_expires_at?: string | null
          claim_token?: string | null
          created_at?: string
          currency: string
          id?: string
          last_attempt_at?: string | null
          last_error?: string | null
          order_id: string
          payment_id?: string | null
          provider_refund_id?: string | null
          status?: string
          updated_at?: string
        }
        Update: {
          amount?: number
          attempts?: number
          claim_expires_at?: string | null
          claim_token?: string | null
          created_at?: string
          currency?: string
          id?: string
          last_attempt_at?: string | null
          last_error?: string | null
          order_id?: string
          payment_id?: string | null
          provider_refund_id?: string | null
          status?: string
          updated_at?: string
        }
        Relationships: [
          {
            foreignKeyName: "refunds_order_id_fkey"
            columns: ["order_id"]
            isOneToOne: false
            referencedRelation: "orders"
            referencedColumns: ["id"]
          },
          {
            foreignKeyName: "refunds_payment_id_fkey"
            columns: ["payment_id"]
            isOneToOne: false
            referencedRelation: "payments"
            referencedColumns: ["id"]
          },
        ]
      }
      stores: {
        Row: {
          created_at: string
          currency: string
          id: string
          is_active: boolean
          name: string
          owner_email: string
          time_zone: string
          updated_at: string
        }
        Insert: {
          created_at?: string
          currency?: string
          id?: string
          is_active?: boolean
          name: string
          owner_email: string
          time_zone?: string
          updated_at?: string
        }
        Update: {
          created_at?: string
          currency?: string
          id?: string
          is_active?: boolean
          name?: string
          owner_email?: string
          time_zone?: string
          updated_at?: string
        }
        Relationships: []
      }
    }
    Views: {
      [_ in never]: never
    }
    Functions: {
      begin_payment: {
        Args: {
          p_client_ip: string
          p_deadline?: string
          p_ip_limit: number
          p_ip_window_seconds: number
          p_order_id: string
        }
        Returns: Json
      }
      bound_lock_wait: { Args: Record<PropertyKey, never>; Returns: undefined }
      cancel_unpaid_orders: {
        Args: {
          p_deadline?: string
          p_gateway_minutes: number
          p_limit?: number
          p_upi_direct_hours: number
        }
        Returns: Json
      }
      check_free_text: { Args: { p_max: number; p_raw: string }; Returns: Json }
      check_optional_free_text: {
        Args: { p_max: number; p_raw: string }
        Returns: Json
      }
      checkout_fee: {
        Args: {
          p_gateway_method: string
          p_payment_method: string
          p_total: number
        }
        Returns: number
      }
      checkout_fee_rate: {
        Args: { p_gateway_method: string; p_payment_method: string }
        Returns: number
      }
      claim_due_emails: {
        Args: {
          p_alone_limit: number
          p_batch_limit: number
          p_claim_ms: number
          p_deadline?: string
          p_min_age_seconds: number
          p_run_ms: number
          p_stale_after_seconds: number
        }
        Returns: Json
      }
      claim_due_refunds: {
        Args: {
          p_claim_ms: number
          p_limit: number
          p_min_age_seconds: number
          p_run_ms?: number
        }
        Returns: Json
      }
      confirm_payment: {
        Args: {
          p_amount_minor: number
          p_currency: string
          p_deadline?: string
          p_event_id: string
          p_method?: string
          p_order_id: string
          p_provider: string
          p_provider_order_id?: string
          p_provider_payment_id: string
        }
        Returns: Json
      }
      create_order: { Args: { payload: Json }; Returns: Json }
      dead_emails: { Args: { p_limit?: number }; Returns: Json }
      deadline_passed: { Args: Record<PropertyKey, never>; Returns: boolean }
      email_outbox_due: {
        Args: {
          p_min_age_seconds: number
          p_row: Database["public"]["Tables"]["email_outbox"]["Row"]
          p_stale_after_seconds: number
        }
        Returns: boolean
      }
      email_outbox_message: {
        Args: { p_row: Database["public"]["Tables"]["email_outbox"]["Row"] }
        Returns: Json
      }
      email_superseded: {
        Args: {
          p_kind: string
          p_order_status: Database["public"]["Enums"]["order_status"]
        }
        Returns: boolean
      }
      failed_refunds: { Args: { p_limit?: number }; Returns: Json }
      format_order_number: {
        Args: { p_sequence: number; p_year: number }
        Returns: string
      }
      gateway_rate_method: { Args: { p_method: string }; Returns: string }
      has_visible_character: { Args: { p_text: string }; Returns: boolean }
      is_canonical_ipv6: { Args: { p_host: string }; Returns: boolean }
      is_country_code: { Args: { p_code: string }; Returns: boolean }
      is_email_address: { Args: { p_address: string }; Returns: boolean }
      is_http_url: { Args: { p_max: number; p_url: string }; Returns: boolean }
      is_one_line_text: {
        Args: { p_max: number; p_text: string }
        Returns: boolean
      }
      is_store_currency: { Args: { p_code: string }; Returns: boolean }
      is_time_zone: { Args: { p_name: string }; Returns: boolean }
      join_queue: { Args: { p_queue: string }; Returns: undefined }
      keep_provider_order: {
        Args: {
          p_amount_minor: number
          p_currency: string
          p_deadline?: string
          p_order_id: string
          p_provider: string
          p_provider_order_id: string
        }
        Returns: Json
      }
      move_order_status: {
        Args: {
          p_actor: string
          p_carrier?: string
          p_note?: string
          p_order_id: string
          p_status: Database["public"]["Enums"]["order_status"]
          p_tracking_number?: string
          p_tracking_url?: string
        }
        Returns: Json
      }
      normalise_phone: { Args: { p_phone: string }; Returns: string }
      order_email_data: { Args: { p_order_id: string }; Returns: Json }
      order_response: { Args: { p_order_id: string }; Returns: Json }
      order_status_next_moves: {
        Args: { p_from: Database["public"]["Enums"]["order_status"] }
        Returns: Json
      }
      order_status_transition_allowed: {
        Args: {
          p_from: Database["public"]["Enums"]["order_status"]
          p_to: Database["public"]["Enums"]["order_status"]
        }
        Returns: boolean
      }
      order_text_rule: { Args: { p_payload: Json }; Returns: Json }
      order_tracking: { Args: { p_order_id: string }; Returns: Json }
      order_year_of:
        | { Args: { p_ordered_at: string }; Returns: number }
        | {
            Args: { p_ordered_at: string; p_time_zone: string }
            Returns: number
          }
      outbox_drain_job_command: {
        Args: Record<PropertyKey, never>
        Returns: string
      }
      prepare_email_sends: {
        Args: { p_batch_key?: string; p_claims: Json; p_deadline?: string }
        Returns: Json
      }
      purge_expired_order_guards: {
        Args: { p_idempotency_hours?: number; p_rate_limit_hours?: number }
        Returns: Json
      }
      queue_refund_email: {
        Args: { p_claim?: boolean; p_refund_id: string }
        Returns: Json
      }
      record_email_results: {
        Args: { p_deadline?: string; p_results: Json }
        Returns: Json
      }
      record_refund_event: {
        Args: {
          p_deadline?: string
          p_event_id: string
          p_provider: string
          p_provider_payment_id: string
          p_provider_refund_id: string
          p_receipt: string
          p_status: string
        }
        Returns: Json
      }
      record_refund_result: {
        Args: {
          p_claim_token: string
          p_error?: string
          p_max_attempts?: number
          p_provider_refund_id?: string
          p_provider_status?: string
          p_refund_id: string
          p_release?: boolean
        }
        Returns: Json
      }
      refund_answer: {
        Args: { p_refund: Database["public"]["Tables"]["refunds"]["Row"] }
        Returns: Json
      }
      refund_claim_message: {
        Args: { p_refund: Database["public"]["Tables"]["refunds"]["Row"] }
        Returns: Json
      }
      retry_dead_emails: {
        Args: { p_deadline?: string; p_ids?: string[] }
        Returns: Json
      }
      schedule_outbox_drain: {
        Args: Record<PropertyKey, never>
        Returns: string
      }
      seller_paid_email_data: { Args: { p_payment_id: string }; Returns: Json }
      start_deadline: {
        Args: { p_deadline: string; p_work: string }
        Returns: undefined
      }
      take_store_slot: { Args: { p_store_id: string }; Returns: undefined }
      text_character_problem: { Args: { p_text: string }; Returns: string }
      trim_text: { Args: { p_text: string }; Returns: string }
      try_queue: { Args: { p_queue: string }; Returns: boolean }
      update_order_status: {
        Args: {
          p_carrier?: string
          p_deadline?: string
          p_note?: string
          p_order_id?: string
          p_order_number?: string
          p_status: string
          p_store_id?: string
          p_tracking_number?: string
          p_tracking_url?: string
        }
        Returns: Json
      }
      uuid_v7: { Args: Record<PropertyKey, never>; Returns: string }
    }
    Enums: {
      order_status:
        | "pending"
        | "payment_pending"
        | "paid"
        | "processing"
        | "shipped"
        | "delivered"
        | "cancelled"
    }
    CompositeTypes: {
      [_ in never]: never
    }
  }
}

type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">

type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]

export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] &
        DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] &
        DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends {
        Row: infer R
      }
      ? R
      : never
    : never

export type TablesInsert<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Insert: infer I
    }
    ? I
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Insert: infer I
      }
      ? I
      : never
    : never

export type TablesUpdate<
  DefaultSchemaTableNameOrOptions extends
    | keyof DefaultSchema["Tables"]
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"]
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"][TableName] extends {
      Update: infer U
    }
    ? U
    : never
  : DefaultSchemaTableNameOrOptions extends keyof DefaultSchema["Tables"]
    ? DefaultSchema["Tables"][DefaultSchemaTableNameOrOptions] extends {
        Update: infer U
      }
      ? U
      : never
    : never

export type Enums<
  DefaultSchemaEnumNameOrOptions extends
    | keyof DefaultSchema["Enums"]
    | { schema: keyof DatabaseWithoutInternals },
  EnumName extends (DefaultSchemaEnumNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"]
    : never) = never,
> = DefaultSchemaEnumNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchemaEnumNameOrOptions["schema"]]["Enums"][EnumName]
  : DefaultSchemaEnumNameOrOptions extends keyof DefaultSchema["Enums"]
    ? DefaultSchema["Enums"][DefaultSchemaEnumNameOrOptions]
    : never

export type CompositeTypes<
  PublicCompositeTypeNameOrOptions extends
    | keyof DefaultSchema["CompositeTypes"]
    | { schema: keyof DatabaseWithoutInternals },
  CompositeTypeName extends (PublicCompositeTypeNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"]
    : never) = never,
> = PublicCompositeTypeNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[PublicCompositeTypeNameOrOptions["schema"]]["CompositeTypes"][CompositeTypeName]
  : PublicCompositeTypeNameOrOptions extends keyof DefaultSchema["CompositeTypes"]
    ? DefaultSchema["CompositeTypes"][PublicCompositeTypeNameOrOptions]
    : never

export const Constants = {
  public: {
    Enums: {
      order_status: [
        "pending",
        "payment_pending",
        "paid",
        "processing",
        "shipped",
        "delivered",
        "cancelled",
      ],
    },
  },
} as const

